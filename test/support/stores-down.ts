import type { Test } from 'tap'
import { startServer } from './cli.js'
import { tempDir } from './temp.js'

/** `hedgelog serve` on a free port and a fresh data directory, killed when the test ends. */
export const serveWith = async (t: Test, env: Record<string, string>) => {
  const server = await startServer([], { HEDGELOG_DATA_DIR: tempDir(t), HEDGELOG_PROJECTION_THREADS: '1', ...env })
  t.teardown(() => { server.child.kill('SIGKILL') })
  return server
}

/** A GET with how long its answer took; aborted after 5 s. */
export const timedGet = async (url: string): Promise<{ status: number; body: unknown; ms: number; retryAfter: string | null }> => {
  const started = performance.now()
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) })
  const body: unknown = await response.json()
  return { status: response.status, body, ms: performance.now() - started, retryAfter: response.headers.get('retry-after') }
}

/** Whether the output holds a stack trace, printed as lines or inside a JSON log line. */
export const hasStackTrace = (output: string): boolean => /^\s+at /m.test(output) || output.includes('\\n    at ')

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
