/**
 * `npm run bench`: what users feel, as ratios to a bare fastify route measured in the same run.
 * Servers under test run on core 0 and this process (the load generator) on core 1, where
 * `taskset` exists. Prints each figure as it is measured, then a table of figure / target / met,
 * and exits non-zero when any target is missed. The JSON line at the end is for tooling.
 *
 * BENCH_SECONDS (default 5) sets each closed-loop measurement, BENCH_SUSTAIN_SECONDS (default 60)
 * the sustained batch load, BENCH_REBUILD_EVENTS (default 1,000,000) the history rebuilt,
 * BENCH_PARTITION_EVENTS (default 300,000) the history built in partitions,
 * BENCH_QUERY_EVENTS (default 1,000,000) the history queried and BENCH_QUERY_RUNS (default 7) the
 * runs of each query, BENCH_LIVE_EVENTS (default 1,000,000) the history live insights are kept
 * over and BENCH_LIVE_SECONDS (default 60) the load they are measured under. BENCH_ONLY, a
 * comma-separated list of parts (appends, capture, sustained, overload, decide, reads, rebuild, partitions,
 * queries, live), runs only those. The overload part offers twice the sustainable `/batch/` rate
 * for BENCH_SUSTAIN_SECONDS.
 */
import { cpus } from 'node:os'
import { captureFigures } from './capture.js'
import { decideFigures } from './decide.js'
import { aggregateAppends, batchAppends, catchUp, concurrentAppends } from './eventlog.js'
import { line, met, table, type Figure } from './figures.js'
import { pinSelfToLoadCore } from './pinning.js'
import { liveInsightFigures } from './live-insights.js'
import { queryFigures } from './queries.js'
import { readFigures } from './reads.js'
import { rebuildFigures } from './rebuild.js'
import { partitionFigures } from './partitions.js'
import { sustainedFigures } from './sustained.js'
import { overloadFigures } from './overload.js'

const seconds = Number(process.env['BENCH_SECONDS'] ?? 5)
const sustain = Number(process.env['BENCH_SUSTAIN_SECONDS'] ?? 60)
const rebuildEvents = Number(process.env['BENCH_REBUILD_EVENTS'] ?? 1_000_000)
const partitionEvents = Number(process.env['BENCH_PARTITION_EVENTS'] ?? 300_000)
const queryEvents = Number(process.env['BENCH_QUERY_EVENTS'] ?? 1_000_000)
const queryRuns = Number(process.env['BENCH_QUERY_RUNS'] ?? 7)
const liveEvents = Number(process.env['BENCH_LIVE_EVENTS'] ?? 1_000_000)
const liveSeconds = Number(process.env['BENCH_LIVE_SECONDS'] ?? 60)
const only = process.env['BENCH_ONLY']?.split(',').map((part) => part.trim())

const notice = pinSelfToLoadCore()
process.stdout.write(`hedgelog bench: node ${process.version}, ${cpus().length} cores, ${seconds} s per measurement${notice ? `\n${notice}` : ', servers on core 0, load on core 1'}\n`)

const figures: Figure[] = []
const report = (found: Figure | Figure[]): void => {
  for (const figure of [found].flat()) {
    figures.push(figure)
    process.stdout.write(`${line(figure)}\n`)
  }
}

/** Each part reports its figures as it measures them. */
const parts: Record<string, () => Promise<void>> = {
  appends: async () => {
    report(await concurrentAppends(64, seconds * 1000))
    report(await aggregateAppends(64, seconds * 1000))
    report(await batchAppends(1000, seconds * 1000))
    report(await catchUp(300_000))
  },
  capture: async () => report(await captureFigures(seconds * 1000)),
  sustained: async () => report(await sustainedFigures(sustain)),
  overload: async () => report(await overloadFigures(sustain)),
  decide: async () => report(await decideFigures(seconds * 1000)),
  reads: async () => report(await readFigures(seconds * 1000)),
  rebuild: async () => report(await rebuildFigures(rebuildEvents)),
  partitions: async () => report(await partitionFigures(partitionEvents)),
  queries: async () => report(await queryFigures(queryEvents, queryRuns)),
  live: async () => report(await liveInsightFigures(liveEvents, seconds * 1000, liveSeconds)),
}
const unknown = (only ?? []).filter((part) => !Object.hasOwn(parts, part))
if (unknown.length > 0) throw new Error(`BENCH_ONLY names no part ${unknown.join(', ')}: the parts are ${Object.keys(parts).join(', ')}`)
for (const [name, measure] of Object.entries(parts)) if (only === undefined || only.includes(name)) await measure()

process.stdout.write(`\n${table(figures)}\n`)
process.stdout.write(`${JSON.stringify({ figures })}\n`)
if (!figures.every(met)) process.exitCode = 1
