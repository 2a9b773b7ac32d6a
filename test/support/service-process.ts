import type { ChildProcess } from 'node:child_process'
import type { Test } from 'tap'
import { spawn } from 'node:child_process'
import { cliCommand } from './cli.js'

/** Resolves with the exit code once the child has exited (also when it already has, by a signal). */
const exited = (child: ChildProcess): Promise<number | null> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve(child.exitCode)
    : new Promise((resolve) => child.once('exit', (code) => resolve(code)))

export interface Health {
  readonly status: number
  readonly body: string
  /** Answered 200 and every projection has caught up with the head of the log. */
  readonly caughtUp: boolean
}

/** A `hedgelog serve` child on one data directory that can be killed and started again. */
export class ServiceProcess {
  private child: ChildProcess | null = null
  private output: () => string = () => ''
  address = ''

  constructor(t: Test, private readonly env: Record<string, string>) {
    t.teardown(() => { this.child?.kill('SIGKILL') })
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null
  }

  /** The server's log lines, for failure messages. */
  log(): string {
    return this.output()
  }

  /** Spawns `hedgelog serve` and waits until it listens; rejects naming the exit code or signal and the output when it dies first. */
  async start(): Promise<void> {
    const [command, args] = cliCommand(['serve'])
    const child = spawn(command, args, { env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] })
    this.child = child
    let output = ''
    this.output = () => output
    this.address = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString()
        const match = /"address":"(http:\/\/[^"]+)"/.exec(output)
        if (match) resolve(match[1]!)
      })
      child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString() })
      child.on('error', reject)
      child.on('exit', (code, signal) => reject(new Error(`hedgelog serve exited (code ${code}, signal ${signal}) before listening: ${output.slice(-2000)}`)))
    })
  }

  async health(): Promise<Health> {
    try {
      const response = await fetch(`${this.address}/_health`, { signal: AbortSignal.timeout(5_000) })
      const body = await response.text()
      let caughtUp = false
      if (response.status === 200) {
        const projections = (JSON.parse(body) as { projections: Record<string, { lag: number; status: string }> }).projections
        caughtUp = Object.values(projections).every((p) => p.lag === 0 && p.status === 'live')
      }
      return { status: response.status, body, caughtUp }
    } catch (error) {
      return { status: 0, body: String(error), caughtUp: false }
    }
  }

  /** Waits until /_health answers 200 with every projection caught up; the last answer when it never did. */
  async caughtUp(timeoutMs: number): Promise<Health> {
    const deadline = Date.now() + timeoutMs
    let last = await this.health()
    while (!last.caughtUp && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      last = await this.health()
    }
    return last
  }

  /** SIGKILL, as a crash: nothing is flushed or closed. */
  async kill(): Promise<void> {
    const child = this.child
    if (!child) return
    child.kill('SIGKILL')
    await exited(child)
    this.child = null
  }

  /** SIGTERM, and waits for the exit. */
  async stop(): Promise<number | null> {
    const child = this.child
    if (!child) return null
    child.kill('SIGTERM')
    const code = await exited(child)
    this.child = null
    return code
  }
}
