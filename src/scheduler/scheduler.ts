import type { ReadStore } from '../readstore/port.js'

export interface Job {
  readonly name: string
  readonly everyMs: number
  run(now: Date): Promise<void>
}

export interface SchedulerOptions {
  readonly store: ReadStore
  readonly jobs: readonly Job[]
  /** Unique per process; the lease holder runs the jobs. */
  readonly owner: string
  readonly tickMs?: number
  readonly leaseMs?: number
  readonly clock?: () => Date
  readonly onError?: (job: string, error: unknown) => void
}

export interface Scheduler {
  stop(): Promise<void>
}

/**
 * Runs periodic jobs in exactly one process at a time: whichever holds the `scheduler` lease in
 * the read store. A crashed holder's lease expires and another scheduler takes over.
 */
export const startScheduler = (options: SchedulerOptions): Scheduler => {
  const clock = options.clock ?? (() => new Date())
  const leaseMs = options.leaseMs ?? 30_000
  const lastRun = new Map<string, number>()
  let running: Promise<void> = Promise.resolve()
  let stopped = false

  const tick = async (): Promise<void> => {
    const now = clock()
    if (!(await options.store.acquireLease('scheduler', options.owner, leaseMs))) return
    for (const job of options.jobs) {
      if (stopped) return
      if (now.getTime() - (lastRun.get(job.name) ?? -Infinity) < job.everyMs) continue
      lastRun.set(job.name, now.getTime())
      await job.run(now).catch((error: unknown) => options.onError?.(job.name, error))
    }
  }
  const timer = setInterval(() => { running = running.then(tick).catch((error: unknown) => options.onError?.('scheduler', error)) }, options.tickMs ?? 1000)
  running = running.then(tick).catch((error: unknown) => options.onError?.('scheduler', error))

  return {
    async stop() {
      stopped = true
      clearInterval(timer)
      await running
      // A lease that cannot be released lapses at its expiry; shutting down goes on either way.
      await options.store.releaseLease('scheduler', options.owner).catch((error: unknown) => options.onError?.('scheduler', error))
    },
  }
}

/**
 * Runs one job every `everyMs` in this process, with no lease: for jobs that are safe to run in
 * every process at once (their writes are idempotent), and should not wait for a lease a dead
 * process still holds.
 */
export const runEverywhere = (job: Job, onError: (job: string, error: unknown) => void): Scheduler => {
  let running: Promise<void> = Promise.resolve()
  const tick = () => { running = running.then(() => job.run(new Date())).catch((error: unknown) => onError(job.name, error)) }
  const timer = setInterval(tick, job.everyMs)
  tick()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
