import t from 'tap'
import fc from 'fast-check'
import { queryWorld, type SentEvent } from './support/query-world.js'

// Runs of each kind: enough to meet empty series, compare periods and odd breakdowns several times.
const RUNS = Number(process.env['QUERY_SHAPE_RUNS'] ?? 150)

const day = (i: number) => new Date(Date.UTC(2024, 0, 1 + (i % 20), i % 24)).toISOString()
const EVENTS: SentEvent[] = Array.from({ length: 60 }, (_, i) => ({
  event: i % 3 === 0 ? 'signup' : '$pageview', distinctId: `u${i % 7}`, at: day(i),
  properties: { $session_id: `s${i % 9}`, plan: i % 2 === 0 ? 'pro' : 'free', n: i, $browser: i % 4 === 0 ? 'Chrome' : 'Firefox', $set: { email: `u${i % 7}@example.com` } },
}))

const property = fc.record({
  key: fc.constantFrom('plan', 'n', '$browser', 'email', 'toString', '__proto__', 'missing'),
  type: fc.constantFrom('event', 'person', 'session'),
  operator: fc.constantFrom('exact', 'is_not', 'icontains', 'regex', 'gt', 'lt', 'is_set', 'is_not_set', 'is_date_after'),
  value: fc.oneof(fc.constantFrom('pro', 'Chrome', '3', '2024-01-05', '^u'), fc.array(fc.constantFrom('pro', 'free'), { maxLength: 2 })),
}).map((filter) => (filter.operator === 'is_set' || filter.operator === 'is_not_set' ? { ...filter, value: filter.operator } : filter))
const node = fc.record({
  kind: fc.constant('EventsNode'),
  event: fc.constantFrom('$pageview', 'signup', null, 'never-sent'),
  math: fc.constantFrom('total', 'dau', 'weekly_active', 'monthly_active', 'unique_session', 'sum', 'avg', 'max', 'p90'),
  math_property: fc.constantFrom('n', 'plan', 'toString'),
  properties: fc.array(property, { maxLength: 2 }),
}, { requiredKeys: ['kind', 'event'] })
const dateRange = fc.record({
  date_from: fc.constantFrom('-7d', '-30d', 'all', '-1dStart', 'mStart', '2024-01-01', '2024-01-19'),
  date_to: fc.constantFrom(null, '2024-01-10', '2024-01-01'),
}, { requiredKeys: ['date_from'] })
const breakdownFilter = fc.record({ breakdown: fc.constantFrom('plan', '$browser', 'n', 'toString', '__proto__'), breakdown_type: fc.constantFrom('event', 'person', 'session'), breakdown_limit: fc.integer({ min: 1, max: 5 }) }, { requiredKeys: ['breakdown'] })
const common = {
  dateRange, interval: fc.constantFrom('hour', 'day', 'week', 'month'), properties: fc.array(property, { maxLength: 2 }),
  filterTestAccounts: fc.boolean(), breakdownFilter,
}

const insightQueries = fc.oneof(
  fc.record({ kind: fc.constant('TrendsQuery'), series: fc.array(node, { maxLength: 3 }), ...common,
    compareFilter: fc.record({ compare: fc.boolean(), compare_to: fc.constantFrom('-1w', '-1m', '-7d') }, { requiredKeys: ['compare'] }),
    trendsFilter: fc.record({ display: fc.constantFrom('ActionsLineGraph', 'BoldNumber', 'ActionsTable', 'ActionsPie', 'ActionsLineGraphCumulative'), formula: fc.constantFrom('A+B', 'A/B', 'A*100') }, { requiredKeys: [] }) }, { requiredKeys: ['kind', 'series'] }),
  fc.record({ kind: fc.constant('FunnelsQuery'), series: fc.array(node.map(({ math: _math, math_property: _property, ...step }) => step), { minLength: 2, maxLength: 4 }), ...common,
    funnelsFilter: fc.record({ funnelOrderType: fc.constantFrom('ordered', 'strict', 'unordered'), funnelVizType: fc.constantFrom('steps', 'trends', 'time_to_convert'), funnelWindowInterval: fc.integer({ min: 1, max: 30 }) }, { requiredKeys: [] }) }, { requiredKeys: ['kind', 'series'] }),
  fc.record({ kind: fc.constant('StickinessQuery'), series: fc.array(node, { maxLength: 2 }), dateRange, interval: common.interval, properties: common.properties }, { requiredKeys: ['kind', 'series'] }),
  fc.record({ kind: fc.constant('LifecycleQuery'), series: fc.tuple(node), dateRange, interval: common.interval, properties: common.properties }, { requiredKeys: ['kind', 'series'] }),
  fc.record({ kind: fc.constant('RetentionQuery'), dateRange, properties: common.properties,
    retentionFilter: fc.record({ period: fc.constantFrom('Day', 'Week', 'Month'), totalIntervals: fc.integer({ min: 1, max: 12 }), retentionType: fc.constantFrom('retention_first_time', 'retention_recurring') }, { requiredKeys: [] }) }, { requiredKeys: ['kind'] }),
  fc.record({ kind: fc.constant('EventsQuery'), select: fc.array(fc.constantFrom('*', 'event', 'timestamp', 'properties.plan', 'properties.toString', 'person.properties.email', 'count()'), { minLength: 1, maxLength: 3 }),
    event: fc.constantFrom('$pageview', null), properties: common.properties, after: fc.constantFrom('2024-01-01', '-30d', 'all'), orderBy: fc.constantFrom(['timestamp DESC'], []) }, { requiredKeys: ['kind', 'select'] }),
)

// The actors behind one data point of any of those insights, as a chart's click asks for them.
const actors = fc.record({
  kind: fc.constant('ActorsQuery'),
  source: fc.oneof(
    fc.record({
      kind: fc.constant('InsightActorsQuery'), source: insightQueries.filter((query) => query.kind !== 'EventsQuery' && query.kind !== 'FunnelsQuery'),
      day: fc.constantFrom('2024-01-01', '2024-01-05T00:00:00Z', 'x', 3), status: fc.constantFrom('new', 'returning', 'resurrecting', 'dormant'),
      interval: fc.integer({ min: 0, max: 6 }), series: fc.integer({ min: 0, max: 3 }), breakdown: fc.constantFrom('pro', 'Chrome', null, 'toString'),
      compare: fc.constantFrom('current', 'previous'),
    }, { requiredKeys: ['kind', 'source'] }),
    fc.record({
      kind: fc.constant('FunnelsActorsQuery'), source: insightQueries.filter((query) => query.kind === 'FunnelsQuery'),
      funnelStep: fc.integer({ min: -4, max: 4 }), funnelStepBreakdown: fc.constantFrom('pro', null, ['pro']),
    }, { requiredKeys: ['kind', 'source'] }),
  ),
  select: fc.constantFrom(['actor'], ['actor', 'event_count'], ['person', 'id', 'created_at'], ['actor', 'properties.email', 'event_distinct_ids']),
  orderBy: fc.constantFrom([], ['event_count DESC'], ['created_at ASC']),
  search: fc.constantFrom('u1', 'example', ''), limit: fc.integer({ min: 1, max: 5 }), offset: fc.integer({ min: 0, max: 5 }),
}, { requiredKeys: ['kind', 'source'] })

const queries = fc.oneof({ weight: 6, arbitrary: insightQueries }, { weight: 2, arbitrary: actors })

const drfShaped = (body: unknown): boolean => {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false
  const error = body as Record<string, unknown>
  return typeof error['type'] === 'string' && typeof error['code'] === 'string' && typeof error['detail'] === 'string' && 'attr' in error
}

t.test('queries of every kind and the actors behind their data points, well formed but odd (no series, compare periods, breakdowns and filters on names Object.prototype holds): answered or refused in DRF\'s shape, never a 5xx', async (t) => {
  const api = await queryWorld(t)
  await api.send(EVENTS)
  const statuses = new Map<number, number>()
  await fc.assert(fc.asyncProperty(queries, async (query) => {
    const answer = await api.query({ query, refresh: 'force_blocking' })
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
    const results = (answer.body as { results?: unknown }).results
    // Results are a list, or an object for a funnel's time to convert.
    const shaped = answer.status === 200 ? results !== null && typeof results === 'object' : answer.status < 500 && drfShaped(answer.body)
    if (!shaped) t.fail(`${JSON.stringify(query)} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 300)}`)
    return shaped
  }), { numRuns: RUNS * 8 })
  t.ok((statuses.get(200) ?? 0) > RUNS * 2, `most queries are answered, so the engines are reached: ${JSON.stringify(Object.fromEntries(statuses))}`)
})
