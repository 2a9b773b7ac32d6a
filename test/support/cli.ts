import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/** The compiled CLI, run through its `#!` line as `npm start` and `npx hedgelog` run it. */
export const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url))

/**
 * The command that runs the CLI with `args` as a user runs it. tap's process tracking adds its
 * module hooks to the `NODE_OPTIONS` of every child spawned from a test, whatever environment
 * is given (they would load in every thread of the service, each with a hooks thread of its
 * own); `env -u` takes them out just before the CLI starts.
 */
export const cliCommand = (args: readonly string[], viaNode = false): [string, string[]] =>
  viaNode ? nodeCommand([MAIN, ...args]) : ['env', ['-u', 'NODE_OPTIONS', MAIN, ...args]]

/** This Node.js running `args`, without tap's module hooks (see `cliCommand`). */
export const nodeCommand = (args: readonly string[]): [string, string[]] => ['env', ['-u', 'NODE_OPTIONS', process.execPath, ...args]]

export interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the CLI to the end; `input`, when given, is its standard input. */
export const runCli = (args: string[], env: Record<string, string>, input?: string): Promise<Run> => new Promise((resolve, reject) => {
  const child = spawn(...cliCommand(args), { env: { ...process.env, ...env }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
  if (input !== undefined) child.stdin!.end(input)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  child.on('error', reject)
  child.on('close', (code) => resolve({ code, stdout, stderr }))
})

/** Starts `hedgelog serve` on a free port and resolves with its address once it listens. */
export const startServer = (args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; address: string; output: () => string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(...cliCommand(['serve', ...args]), { env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /"address":"(http:\/\/[^"]+)"/.exec(output)
      if (match) resolve({ child, address: match[1]!, output: () => output })
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)))
  })

export const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.on('exit', (code) => resolve(code)))
