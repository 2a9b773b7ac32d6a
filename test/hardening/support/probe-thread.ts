import { parentPort, workerData } from 'node:worker_threads'

/** Fetches `url` every `intervalMs` (after each answer) until told to stop, then sends the answer times. */
const { url, intervalMs } = workerData as { url: string; intervalMs: number }
const times: number[] = []
let running = true
parentPort!.once('message', () => { running = false })
while (running) {
  const started = performance.now()
  const response = await fetch(url)
  await response.arrayBuffer()
  times.push(performance.now() - started)
  await new Promise((resolve) => setTimeout(resolve, intervalMs))
}
parentPort!.postMessage(times)
