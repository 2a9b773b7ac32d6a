/**
 * The hot reads of `npm run bench` (a 10-tile dashboard, a person by distinct id, 25 subscriptions)
 * on this build and on another, head to head: `node dist/bench/compare-reads.js
 * OTHER/dist/src/main.js`. Both builds serve at once on core 0, each over its own data made the
 * same way, and this process loads one at a time from core 1 (64 connections, closed loop) in
 * windows of `BENCH_WINDOW_SECONDS` (default 3), `BENCH_ROUNDS` (default 10) per build and read,
 * the first of each pair alternating. Against `compare-builds.js`, which sets the figures of
 * `npm run bench` (ratios to a bare route) side by side, this leaves out the bare route's own
 * variation. Prints each window's rate, the medians and their ratio, and the median CPU time
 * each service spent per answered request (its threads included); exits non-zero when a median
 * rate of this build is lower.
 */
import { existsSync } from 'node:fs'
import { load } from './http-load.js'
import { pinSelfToLoadCore } from './pinning.js'
import { cpuMillis, MAIN, startHedgelog, type Server } from './processes.js'
import { readCases } from './reads.js'
import { install, percentile, projected, type Install } from './setup.js'
import type { Expected } from './targets.js'

const other = process.argv[2]
if (other === undefined || !existsSync(other)) throw new Error('name the other build\'s dist/src/main.js: node dist/bench/compare-reads.js OTHER/dist/src/main.js')
const rounds = Number(process.env['BENCH_ROUNDS'] ?? 10)
const windowMs = Number(process.env['BENCH_WINDOW_SECONDS'] ?? 3) * 1000
/** How long both services rest after their data is made: the projection threads collect their garbage then. */
const SETTLE_MS = 15_000
const notice = pinSelfToLoadCore()
if (notice !== null) process.stdout.write(`${notice}\n`)

interface Side {
  readonly installed: Install
  readonly service: Server
  readonly cases: Array<[Expected, string]>
}

const sideOf = async (main: string): Promise<Side> => {
  const installed = await install(main)
  const service = await startHedgelog(installed.dir, '0', undefined, main)
  await projected(service.address)
  return { installed, service, cases: await readCases(service.address, installed) }
}

const sides = { this: await sideOf(MAIN), other: await sideOf(other) }
let worse = false
try {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const loadOn = (side: Side, index: number, durationMs: number) =>
    load({ url: `${side.service.address}${side.cases[index]![1]}`, headers: { authorization: `Bearer ${side.installed.key}` }, connections: 64, durationMs })
  /** One window's rate, and the service's CPU time per answered request (µs), which the load generator's own variation leaves alone. */
  const measure = async (side: Side, index: number): Promise<{ rate: number; cpu: number }> => {
    const before = cpuMillis(side.service.pid)
    const result = await loadOn(side, index, windowMs)
    return { rate: Math.round(result.perSecond), cpu: ((cpuMillis(side.service.pid) - before) * 1000) / result.requests }
  }
  process.stdout.write('| read | this build, req/s (median; windows) | other build | this / other | CPU µs per request, this / other (medians) |\n|---|---|---|---|---|\n')
  for (let index = 0; index < sides.this.cases.length; index++) {
    for (const side of [sides.this, sides.other]) await loadOn(side, index, 2000)
    const rates = { this: [] as number[], other: [] as number[] }
    const cpu = { this: [] as number[], other: [] as number[] }
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 === 0 ? (['this', 'other'] as const) : (['other', 'this'] as const)) {
        const window = await measure(sides[name], index)
        rates[name].push(window.rate)
        cpu[name].push(window.cpu)
      }
    }
    const cpuText = `${percentile(cpu.this, 0.5).toFixed(1)} / ${percentile(cpu.other, 0.5).toFixed(1)}`
    const mine = percentile(rates.this, 0.5)
    const theirs = percentile(rates.other, 0.5)
    if (mine < theirs) worse = true
    process.stdout.write(`| ${sides.this.cases[index]![0].name} | ${mine} (${rates.this.join(', ')}) | ${theirs} (${rates.other.join(', ')}) | ${(mine / theirs).toFixed(3)} | ${cpuText} |\n`)
  }
} finally {
  for (const side of Object.values(sides)) {
    await side.service.stop()
    side.installed.remove()
  }
}
process.exitCode = worse ? 1 : 0
