import { getHeapStatistics } from 'node:v8'
import { parentPort, workerData } from 'node:worker_threads'
import { collectWhenQuiet } from '../../../projections/threads/idle-collect.js'

/** Grows this thread's heap the way a catch-up does, then goes quiet; reports the heap before, at its largest, and at each asked time. */
const { quietMs, settledMs, at } = workerData as { quietMs: number; settledMs: number; at: number[] }
const heapMb = (): number => getHeapStatistics().total_physical_size / 2 ** 20
const worked = collectWhenQuiet(quietMs, settledMs)
const before = heapMb()
let kept: { text: string; numbers: number[] }[] = []
for (let round = 0; round < 3; round++) {
  for (let i = 0; i < 200_000; i++) kept.push({ text: `${'x'.repeat(50)}${i}`, numbers: [i, i + 1] })
  if (kept.length > 300_000) kept = kept.slice(-100_000)
  worked()
}
const grown = heapMb()
kept = []
const started = performance.now()
const seen: number[] = []
for (const ms of at) {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - (performance.now() - started))))
  seen.push(heapMb())
}
parentPort!.postMessage({ before, grown, seen })
