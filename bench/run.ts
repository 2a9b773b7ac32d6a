/**
 * `npm run bench`: throughput of the embedded engine. Each figure is printed with its target
 * where the project has one; the JSON line at the end is for tooling.
 */
import { cpus } from 'node:os'
import { managementReads } from './management.js'
import { aggregateAppends, batchAppends, catchUp, concurrentAppends, type Figure } from './eventlog.js'
import { ingestionFigures } from './ingestion.js'

const seconds = Number(process.env['BENCH_SECONDS'] ?? 5)

const figures: Figure[] = []
const report = (figure: Figure): void => {
  figures.push(figure)
  const verdict = figure.target === undefined ? '' : figure.value >= figure.target ? `  (target ≥ ${figure.target}: met)` : `  (target ≥ ${figure.target}: MISSED)`
  process.stdout.write(`${figure.name.padEnd(60)} ${Math.round(figure.value).toLocaleString('en-US').padStart(12)} ${figure.unit}${verdict}\n`)
}

process.stdout.write(`hedgelog bench: node ${process.version}, ${cpus().length} cores, ${seconds}s per measurement\n`)
report(await concurrentAppends(64, seconds * 1000))
report(await aggregateAppends(64, seconds * 1000))
report(await batchAppends(1000, seconds * 1000))
report(await catchUp(300_000))
for (const figure of await managementReads(64, seconds * 1000)) report(figure)
for (const figure of await ingestionFigures(seconds * 1000)) report(figure)
process.stdout.write(`${JSON.stringify({ figures })}\n`)
if (figures.some((f) => f.target !== undefined && f.value < f.target)) process.exitCode = 1
