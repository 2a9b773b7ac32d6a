import t from 'tap'
import { world } from '../support/world.js'
import { CAPTURED_COLLECTIONS } from '../projections/support/captured.js'
import { IMPORT_COMMITTED } from '../../src/ingestion/import-events.js'

const DAY = 86_400_000

/** A small seeded generator, so a failing history can be played again from its seed. */
const generator = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296
  }
  const int = (below: number): number => Math.floor(next() * below)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!
  return { next, int, pick }
}

const source = (kind: string, rest: object) => ({ kind, ...rest })
const pageviews = [{ kind: 'EventsNode', event: '$pageview' }]

/** Saved insights of every kind the engine answers, reading persons in each way a query can. */
const QUERIES: Record<string, object> = {
  'daily visitors by browser': source('TrendsQuery', { series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], breakdownFilter: { breakdown: '$browser' }, dateRange: { date_from: '-7d' } }),
  'events by plan at the event': source('TrendsQuery', { series: pageviews, breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' }, dateRange: { date_from: '-14d' } }),
  'events by current plan': source('TrendsQuery', {
    series: pageviews, breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' }, dateRange: { date_from: '-14d' },
    modifiers: { personsOnEventsMode: 'person_id_override_properties_joined' },
  }),
  'pro users': source('TrendsQuery', {
    series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '-14d' },
    properties: [{ key: 'plan', value: ['pro'], operator: 'exact', type: 'person' }],
  }),
  'signup funnel': source('FunnelsQuery', {
    series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }], dateRange: { date_from: '-14d' },
    funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
  }),
  'lifecycle': source('LifecycleQuery', { series: pageviews, interval: 'day', dateRange: { date_from: '-14d' } }),
  'stickiness': source('StickinessQuery', { series: pageviews, interval: 'day', dateRange: { date_from: '-14d' } }),
  'retention': source('RetentionQuery', {
    dateRange: { date_from: '-14d' },
    retentionFilter: { period: 'Day', totalIntervals: 7, targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
  }),
  'events with their persons': source('EventsQuery', { select: ['event', 'distinct_id', 'person', 'timestamp'], orderBy: ['timestamp ASC'], after: '-30d', limit: 100 }),
}

const wrapped = (query: object): object =>
  ((query as { kind: string }).kind === 'EventsQuery' ? { kind: 'DataTableNode', source: query } : { kind: 'InsightVizNode', source: query })

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('insights as of random moments of a random history answer what the engine answered over the read models then', async (t) => {
  const seed = Number(process.env['AS_OF_SEED'] ?? 20261127)
  t.comment(`seed ${seed} (AS_OF_SEED=${seed} plays it again)`)
  const random = generator(seed)
  const service = await world(t, { app: { keepInsightsLive: false } })
  const environmentId = service.installation.environment_id
  const headers = service.bearer(service.key.value)
  const api = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => {
    const response = await service.app.inject({ method, url: `/api/environments/${environmentId}${url}`, headers, ...(payload ? { payload } : {}) })
    return { status: response.statusCode, json: response.json() }
  }
  const ids: Record<string, number> = {}
  for (const [name, query] of Object.entries(QUERIES)) {
    const created = await api('POST', '/insights/', { name, query: wrapped(query), saved: true })
    t.equal(created.status, 201, name)
    ids[name] = created.json.id
  }

  const now = Date.now()
  const dayAt = (back: number) => new Date(Math.floor(now / DAY) * DAY - back * DAY + (1 + random.int(22)) * 3_600_000 + random.int(3_600_000)).toISOString()
  const users = ['u0', 'u1', 'u2', 'u3']
  const anonymous = ['a0', 'a1', 'a2', 'a3']
  const capture = async (batch: object[], historical = false) => {
    const payload = { api_key: service.installation.project_api_key, batch, ...(historical ? { historical_migration: true } : {}) }
    const response = await service.app.inject({ method: 'POST', url: '/batch/', payload })
    t.equal(response.statusCode, 200)
    const head = await service.log.headPosition()
    if (head && !(await service.models.waitFor(head, CAPTURED_COLLECTIONS, 20_000))) throw new Error('projections did not catch up')
  }
  const someEvent = (): object => {
    const distinctId = random.next() < 0.6 ? random.pick(users) : random.pick(anonymous)
    const properties: Record<string, unknown> = { $browser: random.pick(['Chrome', 'Firefox', 'Safari']) }
    if (random.next() < 0.3) properties['$set'] = { plan: random.pick(['pro', 'free']) }
    if (random.next() < 0.1) properties['$process_person_profile'] = false
    return { event: random.next() < 0.75 ? '$pageview' : 'signup', distinct_id: distinctId, timestamp: dayAt(random.int(12)), properties }
  }
  const someMerge = (): object => (random.next() < 0.7
    ? { event: '$identify', distinct_id: random.pick(users), properties: { $anon_distinct_id: random.pick(anonymous), $set: { plan: random.pick(['pro', 'free']) } } }
    : { event: '$create_alias', distinct_id: random.pick(users), properties: { alias: random.pick([...anonymous, ...users]) } })

  const answerNow = async (query: object) => {
    const answered = await api('POST', '/query/', { query, refresh: 'force_blocking' })
    t.equal(answered.status, 200, JSON.stringify(answered.json).slice(0, 300))
    return answered.json.results
  }
  const moments: Array<{ at: string; answers: Record<string, unknown> }> = []
  const steps = 8
  for (let step = 0; step < steps; step++) {
    // Two fixed steps among the random ones: a plan set on a visit, then changed by a merge, so that
    // plans at the event and current plans differ from the fourth moment on.
    const fixed: Record<number, object[]> = {
      0: [{ event: '$pageview', distinct_id: 'u0', timestamp: dayAt(2), properties: { $browser: 'Chrome', $set: { plan: 'free' } } }],
      3: [{ event: '$identify', distinct_id: 'u0', properties: { $anon_distinct_id: 'a0', $set: { plan: 'pro' } } }],
    }
    const batch = fixed[step] ?? (random.next() < 0.35 ? [someMerge(), someEvent()] : Array.from({ length: 1 + random.int(5) }, someEvent))
    // Some batches arrive as historical imports, which apply where the import is committed.
    await capture(batch, step % 3 === 2)
    const answers: Record<string, unknown> = {}
    for (const [name, query] of Object.entries(QUERIES)) answers[name] = await answerNow(query)
    await pause(20)
    moments.push({ at: new Date().toISOString(), answers })
    await pause(20)
  }

  let imports = 0
  for await (const recorded of service.log.readAll()) if (recorded.type === IMPORT_COMMITTED) imports++
  t.equal(imports, 2, 'two batches were committed imports')
  const plans = moments[3]!.answers
  t.not(JSON.stringify(plans['events by plan at the event']), JSON.stringify(plans['events by current plan']), 'plans at the event and now differ')
  t.ok((moments.at(-1)!.answers['events with their persons'] as unknown[]).length > 0, 'events were answered')

  for (const [index, { at, answers }] of moments.entries()) {
    for (const [name, expected] of Object.entries(answers)) {
      const past = await api('GET', `/insights/${ids[name]}/?as_of=${encodeURIComponent(at)}`)
      t.equal(past.status, 200)
      t.equal(past.json.query_status, null, `${name} at moment ${index}: answered`)
      t.same(past.json.result, expected, `${name} at moment ${index}: the engine's answer then`)
    }
  }
})
