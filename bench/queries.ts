import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Figure } from './figures.js'
import { FUNNEL_EVENTS, ingestHistory } from './history.js'
import { answeredPerSecond, pacedLoad, type PacedResult } from './paced-load.js'
import { runOn } from './pinning.js'
import { startHedgelog } from './processes.js'
import type { FloorRequest } from './query-floor.js'
import type { DailyPeople } from './query-floor-work.js'
import { install, percentile, projected, type Install } from './setup.js'
import { TARGETS, measured, type Expected } from './targets.js'

const FLOOR = fileURLToPath(new URL('./query-floor.js', import.meta.url))
/** Batches of 100 events a second while queries are measured under ingestion: half the 40,000 events/s the default `serve` must sustain. */
const LOAD_RATE = 200
/**
 * How long the service rests after the history before queries are measured: the projection
 * threads collect their garbage a few seconds after they catch up and again six seconds later.
 */
const IDLE_SETTLE_MS = 15_000
/** How long the ingestion load runs before queries are measured under it. */
const LOAD_SETTLE_MS = 5000
/** The longest the ingestion load may run: it ends when the queries measured under it do. */
const LOAD_LIMIT_MS = 30 * 60_000
const WINDOW_DAYS = 14
/** Thirty days in the middle of the generated history. */
const DATE_RANGE = { date_from: '2025-06-01', date_to: '2025-06-30' }
const RANGE = { from: '2025-06-01T00:00:00.000Z', to: '2025-06-30T23:59:59.999Z' }

const trendsQuery = {
  kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], interval: 'day', dateRange: DATE_RANGE,
  breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
}
const funnelQuery = {
  kind: 'FunnelsQuery', series: FUNNEL_EVENTS.map((event) => ({ kind: 'EventsNode', event })), dateRange: DATE_RANGE,
  funnelsFilter: { funnelOrderType: 'ordered', funnelWindowInterval: WINDOW_DAYS, funnelWindowIntervalUnit: 'day' },
}

interface Timed {
  readonly ms: number
  readonly result: unknown
}

/** The floor process: the same aggregations straight from the store's files (bench/query-floor-work.ts). */
const startFloor = (dataDir: string) => {
  const [command, ...args] = runOn('0,1', [process.execPath, FLOOR, dataDir])
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  return {
    ask: async (request: FloorRequest): Promise<Timed> => {
      child.stdin.write(`${JSON.stringify(request)}\n`)
      const answer = await answers.next()
      if (answer.done === true) throw new Error('the floor process ended')
      return JSON.parse(answer.value) as Timed
    },
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.stdin.end()
    }),
  }
}

/** POSTs a query with `refresh: force_blocking`, timed until its whole answer has arrived. */
const timedQuery = async (address: string, installed: Install, query: object): Promise<Timed> => {
  const started = performance.now()
  const response = await fetch(`${address}/api/environments/${installed.environmentId}/query/`, {
    method: 'POST', headers: { authorization: `Bearer ${installed.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, refresh: 'force_blocking' }),
  })
  const text = await response.text()
  const ms = performance.now() - started
  if (response.status !== 200) throw new Error(`the ${(query as { kind: string }).kind} answered ${response.status}: ${text.slice(0, 300)}`)
  return { ms, result: JSON.parse(text) }
}

/** A trends answer as the floor gives it: days with people, per breakdown value. */
const dailyPeopleOf = (answer: unknown): DailyPeople => {
  const out: DailyPeople = {}
  for (const series of (answer as { results: { breakdown_value: string; days: string[]; data: number[] }[] }).results) {
    series.days.forEach((day, i) => { if (series.data[i] !== 0) (out[series.breakdown_value] ??= {})[day] = series.data[i]! })
  }
  return out
}

const canonical = (people: DailyPeople): string =>
  JSON.stringify(Object.keys(people).sort().map((value) => [value, Object.entries(people[value]!).sort()]))

/** Each query's times, and the first way its answer differed from the floor's (null while they agree). */
interface Comparison {
  readonly query: number[]
  readonly floor: number[]
  difference: string | null
}

/** `runs` rounds, each the floor's then Hedgelog's trends, then the floor's then Hedgelog's funnel, after one round not counted. */
const measure = async (runs: number, address: string, installed: Install, floor: ReturnType<typeof startFloor>) => {
  const trends: Comparison = { query: [], floor: [], difference: null }
  const funnel: Comparison = { query: [], floor: [], difference: null }
  const { environmentId } = installed
  for (let round = 0; round <= runs; round++) {
    const floorTrends = await floor.ask({ query: 'dailyPeople', environmentId, event: '$pageview', property: '$browser', range: RANGE })
    const queryTrends = await timedQuery(address, installed, trendsQuery)
    const floorFunnel = await floor.ask({ query: 'funnel', environmentId, steps: FUNNEL_EVENTS, windowMs: WINDOW_DAYS * 86_400_000, range: RANGE })
    const queryFunnel = await timedQuery(address, installed, funnelQuery)
    const expected = canonical(floorTrends.result as DailyPeople)
    if (canonical(dailyPeopleOf(queryTrends.result)) !== expected) trends.difference ??= `round ${round}: the store alone counts ${expected.slice(0, 200)}…`
    const steps = (queryFunnel.result as { results: { count: number }[] }).results.map((step) => step.count)
    if (JSON.stringify(steps) !== JSON.stringify(floorFunnel.result)) funnel.difference ??= `round ${round}: steps ${JSON.stringify(steps)}, the store alone ${JSON.stringify(floorFunnel.result)}`
    if (round === 0) continue
    trends.floor.push(floorTrends.ms)
    trends.query.push(queryTrends.ms)
    funnel.floor.push(floorFunnel.ms)
    funnel.query.push(queryFunnel.ms)
  }
  return { trends, funnel }
}

const spread = (values: readonly number[]): string => `${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))}`

/** The figure of one query: its median over the floor's, unless their answers differ or the load it was measured under failed. */
const ratio = (expected: Expected, compared: Comparison, load?: { readonly note: string; readonly failed: boolean }): Figure => {
  const query = percentile(compared.query, 0.5)
  const floor = percentile(compared.floor, 0.5)
  return measured(expected, compared.difference === null && load?.failed !== true ? query / floor : Number.POSITIVE_INFINITY,
    `median ${Math.round(query)} ms (${spread(compared.query)}) vs ${Math.round(floor)} ms (${spread(compared.floor)}) for the store alone over ${compared.query.length} runs`
    + (load === undefined ? '' : `; ${load.note}`) + (compared.difference === null ? '' : `; ANSWERS DIFFER, ${compared.difference}`))
}

/** What the ingestion load did while the queries were measured, from `LOAD_SETTLE_MS` after its start until `stoppedMs`. */
const loadNote = (loaded: PacedResult | Error, stoppedMs: number): { note: string; failed: boolean } => loaded instanceof Error
  ? { note: `THE LOAD FAILED: ${loaded.message}`, failed: true }
  : {
    note: `the load: ${Math.round(answeredPerSecond(loaded, LOAD_SETTLE_MS, stoppedMs) * 100).toLocaleString('en-US')} events/s answered while measured, `
      + `p50 ${Math.round(loaded.p50Ms)} ms, p99 ${Math.round(loaded.p99Ms)} ms, ${loaded.unanswered} unanswered`,
    failed: false,
  }

/**
 * The daily trends query (dau by `$browser`, 30 days) and a 3-step ordered funnel (14-day window,
 * the same 30 days) over a history of `total` captured events, through `POST …/query/` with
 * `refresh: force_blocking` on the default `serve`, each as a ratio of medians to the same
 * aggregation done straight from the store's files by another process in the same run (whose
 * answers must be the same); then both again, the floor too, while `/batch/` is offered 20,000
 * events/s, open loop: a figure fails when the load does (any answer but 2xx).
 */
export const queryFigures = async (total: number, runs: number): Promise<Figure[]> => {
  const installed = await install()
  const service = await startHedgelog(installed.dir, '0,1')
  let floor: ReturnType<typeof startFloor> | null = null
  try {
    await projected(service.address)
    await ingestHistory(service.address, installed.token, total)
    await projected(service.address)
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS))
    floor = startFloor(installed.dir)
    const idle = await measure(runs, service.address, installed, floor)

    const batch = JSON.stringify({
      api_key: installed.token,
      batch: Array.from({ length: 100 }, (_, i) => ({ event: '$pageview', distinct_id: `load-${i}`, timestamp: '2024-05-01T12:00:00.000Z', properties: { $browser: 'Firefox' } })),
    })
    // Offered evenly spaced on a few keep-alive connections by a generator that sleeps between
    // requests, as the sustained load is: the service under it uses both cores.
    let loading = true
    const started = performance.now()
    const load: Promise<PacedResult | Error> = pacedLoad({
      url: `${service.address}/batch/`, method: 'POST', body: batch, rate: LOAD_RATE, connections: 32, durationMs: LOAD_LIMIT_MS, sleeps: true, stop: () => !loading,
    }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
    await new Promise((resolve) => setTimeout(resolve, LOAD_SETTLE_MS))
    const busy = await measure(runs, service.address, installed, floor).finally(() => { loading = false })
    const stoppedMs = performance.now() - started
    const underLoad = loadNote(await load, stoppedMs)
    return [
      ratio(TARGETS.trendsQuery(total), idle.trends),
      ratio(TARGETS.funnelQuery(total), idle.funnel),
      ratio(TARGETS.trendsQueryUnderIngestion(LOAD_RATE * 100), busy.trends, underLoad),
      ratio(TARGETS.funnelQueryUnderIngestion(LOAD_RATE * 100), busy.funnel, underLoad),
    ]
  } finally {
    await floor?.stop()
    await service.stop()
    installed.remove()
  }
}
