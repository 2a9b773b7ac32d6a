import { Worker } from 'node:worker_threads'

/** One timed probe: when it was sent, on the clock of `now()` below, and how long its answer took, in ms. */
export interface TimedProbe {
  readonly at: number
  readonly ms: number
}

export interface Prober {
  /** Stops probing and gives each timed answer's time, in milliseconds. */
  stop(): Promise<number[]>
  /** Stops probing and gives each timed probe with when it was sent. */
  stopTimed(): Promise<TimedProbe[]>
}

/** A clock every thread of the process shares, in ms: what `TimedProbe.at` is read on. */
export const now = (): number => performance.timeOrigin + performance.now()

/**
 * Probes `url` from a thread of its own, so that the times are the service's: the test's own
 * work on its event loop (sending large bodies, reading answers) cannot delay the probe.
 * Resolves once the thread has made one untimed request: a thread's first `fetch` loads and
 * compiles the HTTP client and opens the connection, about 30 ms on an idle machine that are
 * the prober's, not the service's.
 */
export const startProber = async (url: string, intervalMs: number): Promise<Prober> => {
  const worker = new Worker(new URL('./probe-thread.js', import.meta.url), { workerData: { url, intervalMs } })
  const failed = new Promise<never>((_, reject) => worker.once('error', reject))
  failed.catch(() => undefined)
  const next = () => Promise.race([new Promise<unknown>((resolve) => worker.once('message', resolve)), failed])
  const ready = await next()
  if (ready !== 'ready') throw new Error(`the prober thread sent ${JSON.stringify(ready)} before it was ready`)
  const stopTimed = async (): Promise<TimedProbe[]> => {
    const probes = next()
    worker.postMessage('stop')
    const result = (await probes) as TimedProbe[]
    await worker.terminate()
    return result
  }
  return {
    stopTimed,
    async stop() { return (await stopTimed()).map((probe) => probe.ms) },
  }
}
