import t from 'tap'
import { Worker } from 'node:worker_threads'

t.test('a thread quiet after work gives back the heap the work grew: the young generation too, once allocation has been low a while', async (t) => {
  const quietMs = 100
  const settledMs = 6000
  const at = [quietMs + 500, quietMs + settledMs + 1000]
  const worker = new Worker(new URL('./support/idle-collect-thread.js', import.meta.url), { workerData: { quietMs, settledMs, at } })
  const { before, grown, seen } = await new Promise<{ before: number; grown: number; seen: number[] }>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  await worker.terminate()
  const [afterFirst, afterSecond] = seen as [number, number]
  t.ok(grown > 100, `the work grew the heap to ${grown.toFixed(0)} MB`)
  t.ok(afterFirst < grown / 2, `the first collection freed what the work left: ${afterFirst.toFixed(0)} MB`)
  t.ok(afterSecond < before + 8, `the second gave the grown heap back: ${afterSecond.toFixed(0)} MB, from ${before.toFixed(0)} MB before the work`)
})
