import { Worker } from 'node:worker_threads'

/**
 * Probes `url` from a thread of its own, so that the times are the service's: the test's own
 * work on its event loop (sending large bodies, reading answers) cannot delay the probe.
 */
export const startProber = (url: string, intervalMs: number): { stop(): Promise<number[]> } => {
  const worker = new Worker(new URL('./probe-thread.js', import.meta.url), { workerData: { url, intervalMs } })
  const times = new Promise<number[]>((resolve, reject) => {
    worker.once('message', (message: number[]) => resolve(message))
    worker.once('error', reject)
  })
  return {
    async stop() {
      worker.postMessage('stop')
      const result = await times
      await worker.terminate()
      return result
    },
  }
}
