import type { Test } from 'tap'
import { runCli, startServer } from '../../support/cli.js'
import { tempDir } from '../../support/temp.js'

/** A data directory with an installation and `hedgelog serve` running on it; `extra` goes to the service and every command. */
export const liveDataDir = async (t: Test, extra: Record<string, string> = {}) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, LOG_LEVEL: 'warn', ...extra }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as {
    environment_id: number; project_api_key: string; personal_api_key: string
  }
  const server = await startServer([], { ...env, LOG_LEVEL: 'info' })
  t.teardown(() => { server.child.kill('SIGKILL') })
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const response = await fetch(`${server.address}/api/environments/${init.environment_id}${path}`, {
      method,
      headers: { authorization: `Bearer ${init.personal_api_key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    return { status: response.status, json: await response.json().catch(() => null) }
  }
  const cli = (args: string[]) => runCli(args, env)
  return { dir, env, init, server, api, cli }
}

/** A moment strictly between two log records: the log's clock has moved past it afterwards. */
export const pause = (ms = 30): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export const moment = async (): Promise<string> => {
  await pause()
  const at = new Date().toISOString()
  await pause()
  return at
}
