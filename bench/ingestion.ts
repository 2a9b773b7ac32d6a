import autocannon from 'autocannon'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Figure } from './eventlog.js'

const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url))
const BARE = fileURLToPath(new URL('./bare-server.js', import.meta.url))

interface Server {
  readonly address: string
  stop(): Promise<void>
}

/** A port nothing listens on now. */
const freePort = (): Promise<number> => new Promise((resolve, reject) => {
  const probe = createServer()
  probe.once('error', reject)
  probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number }
    probe.close(() => resolve(port))
  })
})

/** Polls until something answers at `url`. */
const answering = async (url: string): Promise<void> => {
  for (let i = 0; i < 200; i++) {
    if (await fetch(url).then(() => true, () => false)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nothing answers at ${url}`)
}

/** Starts a node script in its own process and waits for the address it prints. */
const startProcess = (args: string[], env: Record<string, string>, known?: string): Promise<Server> => new Promise((resolve, reject) => {
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const stop = (): Promise<void> => new Promise((done) => { child.once('exit', () => done()); child.kill('SIGTERM') })
  if (known !== undefined) answering(`${known}/_health`).then(() => resolve({ address: known, stop }), reject)
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    const match = /"address":"(http:\/\/[^"]+)"/.exec(output)
    if (match) {
      resolve({ address: match[1]!, stop })
    }
  })
  child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${output}`)))
})

const run = (command: string[], env: Record<string, string>): Promise<string> => new Promise((resolve, reject) => {
  const child = spawn(process.execPath, command, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command.join(' ')} exited with ${code}`))))
})

/** Requests per second that `connections` keep-alive connections get for one POST body. */
const load = async (url: string, body: string, connections: number, durationMs: number): Promise<number> => {
  const result = await autocannon({
    url, method: 'POST', body, connections, duration: Math.max(1, Math.round(durationMs / 1000)),
    headers: { 'content-type': 'application/json' },
  })
  const failed = result.non2xx + result.errors + result.timeouts
  if (failed > 0) throw new Error(`${url}: ${failed} of ${result.requests.total} requests failed`)
  return result.requests.average
}

const event = (token: string | undefined, i: number) => ({
  ...(token === undefined ? {} : { api_key: token }),
  event: '$pageview', distinct_id: `user-${i}`,
  properties: { $current_url: `https://example.com/products/${i}`, $browser: 'Firefox', $os: 'Linux', $lib: 'bench', plan: 'pro' },
  timestamp: '2024-05-01T12:00:00.000Z',
})

/**
 * The embedded service (`hedgelog serve`, every role, SQLite files) in its own process, against
 * a bare fastify route in another, loaded in turn from this process by autocannon.
 */
export const ingestionFigures = async (durationMs: number): Promise<Figure[]> => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgelog-bench-'))
  const env = { HEDGELOG_DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'warn' }
  try {
    const { project_api_key: token } = JSON.parse(await run([MAIN, 'init', '--json'], env)) as { project_api_key: string }
    const single = JSON.stringify(event(token, 1))

    const bare = await startProcess([BARE], {})
    const bareRate = await load(`${bare.address}/capture/`, single, 64, durationMs).finally(() => bare.stop())

    // The service logs at warn only (as the bare route logs nothing), so it is given its port.
    const port = await freePort()
    const service = await startProcess([MAIN, 'serve'], { ...env, PORT: String(port) }, `http://127.0.0.1:${port}`)
    try {
      await load(`${service.address}/capture/`, single, 64, 1000)
      const captureRate = await load(`${service.address}/capture/`, single, 64, durationMs)
      const batch = JSON.stringify({ api_key: token, batch: Array.from({ length: 100 }, (_, i) => event(undefined, i)) })
      const batchRate = await load(`${service.address}/batch/`, batch, 16, durationMs)
      return [
        { name: 'bare fastify route, same POST, 64 connections', value: bareRate, unit: 'req/s' },
        { name: 'single-event /capture/, 64 connections', value: captureRate, unit: 'req/s' },
        { name: '/capture/ as a share of the bare route', value: (100 * captureRate) / bareRate, unit: '%', target: 60 },
        { name: '/batch/ of 100 events, 16 connections', value: batchRate * 100, unit: 'events/s', target: 100_000 },
      ]
    } finally {
      await service.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
