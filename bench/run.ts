/**
 * `npm run bench`: throughput of the embedded engine. Each figure is printed with its target
 * where the project has one; the JSON line at the end is for tooling.
 */
import { cpus } from 'node:os'
import { managementReads } from './management.js'
import { aggregateAppends, batchAppends, catchUp, concurrentAppends, type Figure } from './eventlog.js'
import { ingestionFigures } from './ingestion.js'
import { decideFigures } from './decide.js'
import { ackToReadable } from './ack-to-readable.js'

const seconds = Number(process.env['BENCH_SECONDS'] ?? 5)

const figures: Figure[] = []
const met = (figure: Figure): boolean =>
  (figure.target === undefined || figure.value >= figure.target) && (figure.ceiling === undefined || figure.value <= figure.ceiling)
const report = (figure: Figure): void => {
  figures.push(figure)
  const verdict = figure.target !== undefined ? `  (target ≥ ${figure.target}: ${met(figure) ? 'met' : 'MISSED'})`
    : figure.ceiling !== undefined ? `  (target ≤ ${figure.ceiling}: ${met(figure) ? 'met' : 'MISSED'})` : ''
  process.stdout.write(`${figure.name.padEnd(60)} ${Math.round(figure.value).toLocaleString('en-US').padStart(12)} ${figure.unit}${verdict}\n`)
}

process.stdout.write(`hedgelog bench: node ${process.version}, ${cpus().length} cores, ${seconds}s per measurement\n`)
report(await concurrentAppends(64, seconds * 1000))
report(await aggregateAppends(64, seconds * 1000))
report(await batchAppends(1000, seconds * 1000))
report(await catchUp(300_000))
for (const figure of await managementReads(64, seconds * 1000)) report(figure)
for (const figure of await ingestionFigures(seconds * 1000)) report(figure)
for (const figure of await ackToReadable(seconds * 1000)) report(figure)
for (const figure of await decideFigures(seconds * 1000)) report(figure)
process.stdout.write(`${JSON.stringify({ figures })}\n`)
if (!figures.every(met)) process.exitCode = 1
