import { parentPort, workerData } from 'node:worker_threads'
import { now } from './prober.js'

/**
 * Fetches `url` once untimed and says it is ready, then every `intervalMs` (after each answer)
 * until told to stop, and sends each probe's start, on the clock all threads share, and its time.
 */
const { url, intervalMs } = workerData as { url: string; intervalMs: number }
const fetchOnce = async (): Promise<void> => {
  const response = await fetch(url)
  await response.arrayBuffer()
}
const times: Array<{ at: number; ms: number }> = []
let running = true
parentPort!.once('message', () => { running = false })
await fetchOnce()
parentPort!.postMessage('ready')
while (running) {
  const started = now()
  await fetchOnce()
  times.push({ at: started, ms: now() - started })
  await new Promise((resolve) => setTimeout(resolve, intervalMs))
}
parentPort!.postMessage(times)
