import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BareDocument } from './bare-server.js'
import type { Figure } from './figures.js'
import { FUNNEL_EVENTS, ingestHistory } from './history.js'
import { compareWithBare, comparisonNote } from './http-load.js'
import { answeredPerSecond, pacedLoad, type PacedResult } from './paced-load.js'
import { startBare, startHedgelog } from './processes.js'
import { client, install, percentile, projected, type Install } from './setup.js'
import { TARGETS, measured } from './targets.js'

/**
 * Batches of 100 events offered per second while live insights are measured under load: 80 % of
 * the 20,000 events/s the captured-event read models of the default `serve` keep up with (their
 * live projection rate in this bench's rebuild figures).
 */
const LOAD_RATE = 160
/** How long the service rests after the history and the builds before reads are measured. */
const SETTLE_MS = 15_000
/** The longest the live builds may take over the history. */
const BUILD_LIMIT_MS = 20 * 60_000
/** A probe every this often while the load runs. */
const PROBE_EVERY_MS = 250

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const june = { date_from: '2025-06-01', date_to: '2025-06-30' }
const july = { date_from: '2025-07-01', date_to: '2025-07-31' }
const series = (event: string, math?: string) => ({ kind: 'EventsNode', event, ...(math ? { math } : {}) })
const byBrowser = { breakdown: '$browser', breakdown_type: 'event' }
const viz = (source: object) => ({ kind: 'InsightVizNode', source })

/** The dashboard's ten tiles: trends with a breakdown, dau, a 3-step funnel and retention, over the history's summer. */
const DASHBOARD_QUERIES = [
  viz({ kind: 'TrendsQuery', series: [series('$pageview', 'dau')], breakdownFilter: byBrowser, dateRange: june }),
  viz({ kind: 'TrendsQuery', series: [series('$pageview')], breakdownFilter: byBrowser, dateRange: june }),
  viz({ kind: 'TrendsQuery', series: [series('$pageview', 'dau')], dateRange: june }),
  viz({ kind: 'TrendsQuery', series: [series('signed_up'), series('purchased')], interval: 'week', dateRange: { date_from: '2025-04-01', date_to: '2025-08-31' } }),
  viz({ kind: 'TrendsQuery', series: [series('purchased', 'dau')], breakdownFilter: byBrowser, dateRange: july }),
  viz({ kind: 'TrendsQuery', series: [series('$pageview', 'dau')], trendsFilter: { display: 'BoldNumber' }, dateRange: july }),
  viz({ kind: 'FunnelsQuery', series: FUNNEL_EVENTS.map((event) => series(event)), dateRange: june, funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' } }),
  viz({ kind: 'FunnelsQuery', series: FUNNEL_EVENTS.map((event) => series(event)), breakdownFilter: byBrowser, dateRange: july, funnelsFilter: { funnelWindowInterval: 7, funnelWindowIntervalUnit: 'day' } }),
  viz({ kind: 'RetentionQuery', retentionFilter: { targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' }, period: 'Week', totalIntervals: 8 }, dateRange: { date_from: '2025-05-01', date_to: '2025-07-31' } }),
  viz({ kind: 'RetentionQuery', retentionFilter: { targetEntity: { id: 'signed_up', type: 'events' }, returningEntity: { id: 'purchased', type: 'events' }, period: 'Week', totalIntervals: 8 }, dateRange: { date_from: '2025-05-01', date_to: '2025-07-31' } }),
]

/**
 * Forty more live insights for the load: trends and funnels, half of them over months of the
 * history and half over the last days, which count every event of the load.
 */
const moreQueries = (): object[] => Array.from({ length: 40 }, (_, i) => {
  const month = String(1 + (i % 9)).padStart(2, '0')
  const relative = Math.floor(i / 4) % 2 === 1
  const range = relative ? { date_from: i % 3 === 0 ? '-7d' : '-30d' } : { date_from: `2025-${month}-01`, date_to: `2025-${month}-28` }
  return i % 4 === 3
    ? viz({ kind: 'FunnelsQuery', series: FUNNEL_EVENTS.map((event) => series(event)), dateRange: range, funnelsFilter: { funnelWindowInterval: 1 + (i % 7), funnelWindowIntervalUnit: 'day' } })
    : viz({ kind: 'TrendsQuery', series: [series(FUNNEL_EVENTS[i % 3]!, i % 2 === 0 ? 'dau' : undefined)], ...(i % 3 === 0 ? { breakdownFilter: byBrowser } : {}), dateRange: range })
})

/** The probe's insight: every `probe` event of today, counted live. */
const PROBE_QUERY = viz({ kind: 'TrendsQuery', series: [series('probe')], trendsFilter: { display: 'BoldNumber' }, dateRange: { date_from: '-1d' } })

interface Tile {
  readonly insight: { readonly id: number; readonly is_cached: boolean; readonly query_status: unknown; readonly result: unknown; readonly query: { source: object } } | null
}

/** Waits until every tile of the dashboard answers live (cached, no query status); the time it took. */
const allLive = async (api: ReturnType<typeof client>, path: string): Promise<number> => {
  const started = Date.now()
  while (Date.now() - started < BUILD_LIMIT_MS) {
    const dashboard = await api.get<{ tiles: Tile[] }>(path)
    if (dashboard.tiles.every((tile) => tile.insight === null || (tile.insight.is_cached && tile.insight.query_status === null && tile.insight.result !== null))) return Date.now() - started
    await sleep(2000)
  }
  throw new Error(`the live insights of ${path} were not built within ${BUILD_LIMIT_MS / 60_000} minutes`)
}

/**
 * Waits until the probe's insight answers live, once a generation holding every wanted query
 * (the fifty insights' distinct queries) has caught up; what the live state kept, in words (queries left out for the state's budget are computed on
 * reads).
 */
const keptLive = async (api: ReturnType<typeof client>, probe: string): Promise<string> => {
  const started = Date.now()
  while (Date.now() - started < BUILD_LIMIT_MS) {
    const status = await api.get<{ serving: { queries: number; entries: number; caught_up: boolean } | null; building: object | null; wanted: number; queries: Array<{ too_large: boolean }> }>(`${api.base}/insights/live/`)
    const insight = await api.get<{ is_cached: boolean; query_status: unknown }>(probe)
    // Insights with the same query share one live query: the generation holds every distinct one wanted.
    if (status.serving?.caught_up && status.building === null && status.serving.queries === status.wanted && insight.is_cached && insight.query_status === null) {
      const left = status.queries.filter((query) => query.too_large).length
      return `${status.serving.queries - left} of ${status.serving.queries} distinct queries live, ${left} left out for the budget (${status.serving.entries.toLocaleString('en-US')} entries kept), built in ${Math.round((Date.now() - started) / 1000)} s`
    }
    await sleep(2000)
  }
  throw new Error(`the fifty live insights were not built within ${BUILD_LIMIT_MS / 60_000} minutes`)
}

/** Every live tile's answer equals the engine's for its query; the tiles that differ. */
const differences = async (api: ReturnType<typeof client>, path: string): Promise<string[]> => {
  const dashboard = await api.get<{ tiles: Tile[] }>(path)
  const differ: string[] = []
  for (const tile of dashboard.tiles) {
    if (tile.insight === null) continue
    const engine = await api.post<{ results: unknown }>(`${api.base}/query/`, { query: tile.insight.query.source, refresh: 'force_blocking' })
    if (JSON.stringify(engine.results) !== JSON.stringify(tile.insight.result)) differ.push(`insight ${tile.insight.id}`)
  }
  return differ
}

/** Moves a started service's threads to `cores` (`taskset`), as the bench pins servers. */
const pin = (pid: number, cores: string): void => {
  try {
    execFileSync('taskset', ['-a', '-cp', cores, String(pid)], { stdio: 'ignore' })
  } catch {
    // Without taskset the service keeps the cores it has.
  }
}

const dashboardWith = async (api: ReturnType<typeof client>, name: string, queries: readonly object[]): Promise<string> => {
  const dashboard = await api.post<{ id: number }>(`${api.base}/dashboards/`, { name })
  for (const [i, query] of queries.entries()) {
    await api.post(`${api.base}/insights/`, { name: `${name} ${i + 1}`, query, saved: true, dashboards: [dashboard.id] })
  }
  return `${api.base}/dashboards/${dashboard.id}/`
}

/**
 * Live insights over a history of `total` captured events (bench/history.ts) on the default
 * `serve`: a dashboard of ten live insight tiles (trends with a breakdown, dau, 3-step funnels,
 * retention), its GET as a share of a bare fastify GET answering the same bytes (servers on core
 * 0, load on core 1), once every tile equals the engine's answer; then, with fifty live insights
 * and `/batch/` offered 16,000 events/s open loop for `seconds` on both cores, the time from a
 * probe event's acknowledgement until a live insight counts it, and until the events read model
 * holds it.
 */
export const liveInsightFigures = async (total: number, durationMs: number, seconds: number): Promise<Figure[]> => {
  const installed: Install = await install()
  const service = await startHedgelog(installed.dir, '0,1')
  const figures: Figure[] = []
  try {
    await projected(service.address)
    await ingestHistory(service.address, installed.token, total)
    await projected(service.address)
    const api = client(service.address, installed)
    const path = await dashboardWith(api, 'live', DASHBOARD_QUERIES)
    const built = await allLive(api, path)
    const differ = await differences(api, path)
    process.stdout.write(`live insights: ten tiles built over ${total.toLocaleString('en-US')} events in ${Math.round(built / 1000)} s; ${differ.length === 0 ? 'each equals the engine' : `DIFFER: ${differ.join(', ')}`}\n`)

    pin(service.pid, '0')
    await sleep(SETTLE_MS)
    const documents: BareDocument[] = [{ method: 'GET', path, body: await api.raw(path) }]
    const file = join(installed.dir, 'bare-live-documents.json')
    writeFileSync(file, JSON.stringify(documents))
    const bare = await startBare(file)
    try {
      const baseline = { url: `${bare.address}${path}`, headers: { authorization: `Bearer ${installed.key}` }, connections: 64, durationMs }
      const compared = await compareWithBare(baseline, { ...baseline, url: `${service.address}${path}` })
      const note = `${comparisonNote(compared)}; built in ${Math.round(built / 1000)} s${differ.length === 0 ? '' : `; ANSWERS DIFFER from the engine's: ${differ.join(', ')}`}`
      figures.push(measured(TARGETS.liveDashboard, differ.length === 0 ? compared.percent : 0, note))
    } finally {
      await bare.stop()
    }
    process.stdout.write(`live insights: ${figures[0]!.value.toFixed(1)} % of bare\n`)

    pin(service.pid, '0,1')
    const more = await dashboardWith(api, 'load', [...moreQueries(), PROBE_QUERY])
    const probe = (await api.get<{ tiles: Tile[] }>(more)).tiles.find((tile) => JSON.stringify(tile.insight?.query.source) === JSON.stringify(PROBE_QUERY.source))!.insight!.id
    const kept = await keptLive(api, `${api.base}/insights/${probe}/`)
    process.stdout.write(`live insights under load: ${kept}\n`)
    figures.push(...await underLoad(service.address, installed, `${api.base}/insights/${probe}/`, seconds, kept))
    return figures
  } finally {
    await service.stop()
    installed.remove()
  }
}

/** The probe insight's count of `probe` events. */
const probeCount = async (api: ReturnType<typeof client>, path: string): Promise<number> => {
  const insight = await api.get<{ result: Array<{ aggregated_value?: number }> | null }>(path)
  return insight.result?.[0]?.aggregated_value ?? 0
}

const underLoad = async (address: string, installed: Install, path: string, seconds: number, kept: string): Promise<Figure[]> => {
  const api = client(address, installed)
  const batch = JSON.stringify({
    api_key: installed.token,
    batch: Array.from({ length: 100 }, (_, i) => ({ event: FUNNEL_EVENTS[i % 3], distinct_id: `load-${i % 50}`, properties: { $browser: 'Chrome' } })),
  })
  const loaded: Promise<PacedResult | Error> = pacedLoad({
    url: `${address}/batch/`, method: 'POST', body: batch, rate: LOAD_RATE, connections: 32, durationMs: seconds * 1000, sleeps: true,
  }).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
  const live: number[] = []
  const events: number[] = []
  let unread = 0
  const deadline = performance.now() + seconds * 1000 - 2000
  for (let n = 1; performance.now() < deadline; n++) {
    const uuid = crypto.randomUUID()
    const answer = await fetch(`${address}/batch/`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: installed.token, batch: [{ event: 'probe', uuid, distinct_id: `probe-${n}` }] }),
    })
    if (answer.status !== 200) throw new Error(`a probe answered ${answer.status}`)
    const acked = performance.now()
    let counted: number | null = null
    let stored: number | null = null
    while ((counted === null || stored === null) && performance.now() - acked < 10_000) {
      if (counted === null && await probeCount(api, path) >= n) counted = performance.now() - acked
      if (stored === null && await api.get<{ id: string }>(`${api.base}/events/${uuid}/`).then((event) => event.id === uuid, () => false)) {
        stored = performance.now() - acked
      }
      await sleep(10)
    }
    if (counted === null || stored === null) unread++
    else {
      live.push(counted)
      events.push(stored)
    }
    await sleep(Math.max(0, PROBE_EVERY_MS - (performance.now() - acked)))
  }
  const load = await loaded
  const note = load instanceof Error
    ? `THE LOAD FAILED: ${load.message}`
    : `${kept}; ${live.length} probes, ${unread} not read within 10 s; the load: ${Math.round(answeredPerSecond(load, 5000, seconds * 1000 - 5000) * 100).toLocaleString('en-US')} events/s answered, p99 ${Math.round(load.p99Ms)} ms, ${load.unanswered} unanswered`
  const failed = load instanceof Error || unread > 0 || live.length === 0
  return [
    measured(TARGETS.liveReadable, failed ? Number.POSITIVE_INFINITY : percentile(live, 0.99), `p50 ${Math.round(percentile(live, 0.5))} ms; ${note}`),
    measured(TARGETS.readable('events, beside 50 live insights'), failed ? Number.POSITIVE_INFINITY : percentile(events, 0.99), `p50 ${Math.round(percentile(events, 0.5))} ms`),
  ]
}
