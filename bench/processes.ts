import autocannon from 'autocannon'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

export const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url))
export const BARE = fileURLToPath(new URL('./bare-server.js', import.meta.url))

export interface Server {
  readonly address: string
  /** The server's process id. */
  readonly pid: number
  stop(): Promise<void>
}

/** A port nothing listens on now. */
export const freePort = (): Promise<number> => new Promise((resolve, reject) => {
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
export const startProcess = (args: string[], env: Record<string, string>, known?: string): Promise<Server> => new Promise((resolve, reject) => {
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const stop = (): Promise<void> => new Promise((done) => { child.once('exit', () => done()); child.kill('SIGTERM') })
  const pid = child.pid!
  if (known !== undefined) answering(`${known}/_health`).then(() => resolve({ address: known, pid, stop }), reject)
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    const match = /"address":"(http:\/\/[^"]+)"/.exec(output)
    if (match) {
      resolve({ address: match[1]!, pid, stop })
    }
  })
  child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${output}`)))
})

export const run = (command: string[], env: Record<string, string>): Promise<string> => new Promise((resolve, reject) => {
  const child = spawn(process.execPath, command, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command.join(' ')} exited with ${code}`))))
})

export interface LoadFigures {
  readonly perSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
}

/** What `connections` keep-alive connections get for one POST body: requests/s and latency. */
export const measure = async (url: string, body: string, connections: number, durationMs: number): Promise<LoadFigures> => {
  const result = await autocannon({
    url, method: 'POST', body, connections, duration: Math.max(1, Math.round(durationMs / 1000)),
    headers: { 'content-type': 'application/json' },
  })
  const failed = result.non2xx + result.errors + result.timeouts
  if (failed > 0) throw new Error(`${url}: ${failed} of ${result.requests.total} requests failed`)
  return { perSecond: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99 }
}

/** Requests per second that `connections` keep-alive connections get for one POST body. */
export const load = async (url: string, body: string, connections: number, durationMs: number): Promise<number> =>
  (await measure(url, body, connections, durationMs)).perSecond
