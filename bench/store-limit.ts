import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'
import { projectShare, type Share } from './store-limit-work.js'

/**
 * `node store-limit.js <log file> <store file> [--indexes-after]`: the store's share of projecting
 * every captured event of a log (see `projectShare`), split over two threads as the projection
 * threads split it, each writing a file of its own (`<store file>` with the share's name) as each
 * captured-event projection does. With `--indexes-after`, the secondary indexes are created once
 * every document is written, as a bulk build would, and their creation is timed too. Prints
 * `{"events": …, "seconds": …}`.
 */
if (isMainThread) {
  const [logPath, storePath, option] = process.argv.slice(2)
  if (logPath === undefined || storePath === undefined || (option !== undefined && option !== '--indexes-after')) {
    throw new Error('usage: store-limit <log file> <store file> [--indexes-after]')
  }
  const indexesAfter = option === '--indexes-after'
  const started = performance.now()
  const shares: Share[] = ['people', 'activity']
  const counts = await Promise.all(shares.map((share) => new Promise<number>((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { share, logPath, storePath: `${storePath}-${share}`, indexesAfter } })
    worker.once('message', resolve)
    worker.once('error', reject)
  })))
  process.stdout.write(`${JSON.stringify({ events: counts[0], seconds: (performance.now() - started) / 1000 })}\n`)
} else {
  const { share, logPath, storePath, indexesAfter } = workerData as { share: Share; logPath: string; storePath: string; indexesAfter: boolean }
  parentPort!.postMessage(projectShare(share, logPath, storePath, indexesAfter))
}
