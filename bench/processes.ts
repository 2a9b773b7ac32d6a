import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { runOn } from './pinning.js'

/** Hedgelog's CLI: this build's, or another build's named by `BENCH_MAIN` (`bench/compare-builds.ts`). */
export const MAIN = process.env['BENCH_MAIN'] ?? fileURLToPath(new URL('../src/main.js', import.meta.url))
export const BARE = fileURLToPath(new URL('./bare-server.js', import.meta.url))
const DURABLE_CAPTURE = fileURLToPath(new URL('./durable-capture-server.js', import.meta.url))

/**
 * How a script is run: Hedgelog's CLI (this build's or another's) through its `#!` line, as
 * `npm start` and `npx hedgelog` run it (the line sets the allocator's environment), any other
 * script by node.
 */
const commandOf = (args: string[]): [string, ...string[]] => (args[0]!.endsWith('/src/main.js') ? [args[0]!, ...args.slice(1)] : [process.execPath, ...args])

/** Servers under test run on core 0; work that is not measured against a bare route may use both. */
export type Cores = '0' | '0,1'

export interface Server {
  readonly address: string
  readonly pid: number
  stop(): Promise<void>
}

/**
 * The CPU time a process has used so far, its threads included, in milliseconds: user and system
 * time from `/proc/PID/stat`, counted in Linux's fixed 100 ticks a second.
 */
export const cpuMillis = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')
  // After the command's closing parenthesis, utime and stime are the 12th and 13th fields.
  return (Number(fields[11]) + Number(fields[12])) * 10
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
  for (let i = 0; i < 600; i++) {
    if (await fetch(url).then(() => true, () => false)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`nothing answers at ${url}`)
}

/**
 * Starts a script on `cores` in its own process and resolves once it serves: at `known`
 * when given (polling `/_health`), else at the address it prints as `{"address": …}`.
 */
export const startProcess = (args: string[], env: Record<string, string>, cores: Cores, known?: string): Promise<Server> => new Promise((resolve, reject) => {
  const [command, ...rest] = runOn(cores, commandOf(args))
  const child = spawn(command, rest, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let exited = false
  child.once('exit', () => { exited = true })
  const stop = (): Promise<void> => new Promise((done) => {
    if (exited) return done()
    child.once('exit', () => done())
    child.kill('SIGTERM')
  })
  const pid = child.pid!
  if (known !== undefined) answering(`${known}/_health`).then(() => resolve({ address: known, pid, stop }), reject)
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString()
    const match = /"address":"(http:\/\/[^"]+)"/.exec(output)
    if (match) resolve({ address: match[1]!, pid, stop })
  })
  child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${output.slice(-2000)}`)))
})

/** Runs a script to its end on both cores and resolves with what it printed. */
export const run = (args: string[], env: Record<string, string>): Promise<string> => new Promise((resolve, reject) => {
  const [command, ...rest] = runOn('0,1', commandOf(args))
  const child = spawn(command, rest, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${args.join(' ')} exited with ${code}`))))
})

/** `hedgelog serve` (every role, or `roles`) over the data in `dir`, on `cores`, logging warnings only; `main` names another build's CLI. */
export const startHedgelog = async (dir: string, cores: Cores, roles?: string, main = MAIN, env: Record<string, string> = {}): Promise<Server> => {
  const port = await freePort()
  const args = roles === undefined ? [main, 'serve'] : [main, 'serve', '--roles', roles]
  return startProcess(args, { HEDGELOG_DATA_DIR: dir, PORT: String(port), LOG_LEVEL: 'warn', HEDGELOG_RATE_LIMITS: 'off', ...env }, cores, `http://127.0.0.1:${port}`)
}

/** The durable-capture ceiling (`bench/durable-capture-server.ts`) on core 0, writing its file in `dir`. */
export const startDurableCapture = (dir: string): Promise<Server> => startProcess([DURABLE_CAPTURE, dir], {}, '0')

/** The bare fastify baseline on core 0, answering `documents` (method and path → exact body) besides its POST routes. */
export const startBare = (documentsFile?: string): Promise<Server> =>
  startProcess(documentsFile === undefined ? [BARE] : [BARE, documentsFile], {}, '0')
