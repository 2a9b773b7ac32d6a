import fc from 'fast-check'
import type { JsonObject } from '../../../src/eventlog/port.js'
import type { QueryEvent } from '../../../src/insights/engine/data.js'
import type { NaiveFilter, NaiveGroup } from './naive-filters.js'
import type { NaiveQuery } from './naive-insights.js'

export const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'] as const

const START = Date.parse('2024-02-20T00:00:00Z')
const END = Date.parse('2024-04-12T00:00:00Z')

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 })
const props = fc.record({
  plan: optional(fc.constantFrom<unknown>('pro', 'Pro', 'free', 5, '', null, true)),
  amount: optional(fc.constantFrom<unknown>(1, 2.5, 10, '7', 'x', -3)),
  $browser: optional(fc.constantFrom<unknown>('Chrome', 'Firefox', 'Safari', '', null)),
  $session_id: optional(fc.constantFrom<unknown>('s1', 's2', 's3', '')),
  $group_0: optional(fc.constantFrom<unknown>('g1', 'g2', '')),
}).map((record) => Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as JsonObject)

/** Five persons with one to three distinct ids, a creation time and a tier; events over seven weeks. */
export const randomEvents: fc.Arbitrary<QueryEvent[]> = fc.tuple(
  fc.array(fc.record({ created: fc.integer({ min: START - 10 * 86_400_000, max: END }), tier: optional(fc.constantFrom<unknown>('gold', 'silver', null)), ids: fc.integer({ min: 1, max: 3 }) }), { minLength: 5, maxLength: 5 }),
  fc.array(fc.record({ person: fc.integer({ min: 0, max: 4 }), id: fc.integer({ min: 0, max: 2 }), event: fc.constantFrom('$pageview', 'signup'), at: fc.integer({ min: START, max: END }), properties: props }), { maxLength: 45 }),
).map(([persons, rows]) => rows.map((row, i) => {
  const person = persons[row.person]!
  return {
    uuid: `r${i}`, event: row.event, timestamp: row.at, distinctId: `p${row.person}-${row.id % person.ids}`, personId: `p${row.person}`,
    personCreatedAt: person.created, properties: row.properties, personProperties: person.tier === undefined ? {} : { tier: person.tier },
  }
}))

const filterValue = fc.constantFrom<unknown>('pro', 'Pro', 'free', '5', 5, 'x', '7', true)
const filter: fc.Arbitrary<NaiveFilter> = fc.oneof(
  fc.record({ type: fc.constant('event' as const), key: fc.constantFrom('plan', 'amount', '$browser'), operator: fc.constantFrom('exact', 'is_not', 'icontains', 'not_icontains'), value: fc.oneof(filterValue, fc.array(filterValue, { maxLength: 2 })) }),
  fc.record({ type: fc.constant('event' as const), key: fc.constantFrom('plan', 'amount'), operator: fc.constantFrom('regex', 'not_regex'), value: fc.constantFrom('^p', 'o', '[0-9]', '^$') }),
  fc.record({ type: fc.constant('event' as const), key: fc.constant('amount'), operator: fc.constantFrom('gt', 'gte', 'lt', 'lte'), value: fc.constantFrom(1, 2.5, 7) }),
  fc.record({ type: fc.constant('event' as const), key: fc.constant('amount'), operator: fc.constantFrom('between', 'not_between'), value: fc.constantFrom([1, 7], [-5, 2.5]) }),
  fc.record({ type: fc.constantFrom('event' as const, 'person' as const), key: fc.constantFrom('plan', 'tier'), operator: fc.constantFrom('is_set', 'is_not_set') }),
  fc.record({ type: fc.constant('person' as const), key: fc.constant('tier'), operator: fc.constantFrom('exact', 'is_not'), value: fc.constantFrom('gold', 'silver') }),
)
const filters: fc.Arbitrary<NaiveFilter[] | NaiveGroup | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.array(filter, { maxLength: 2 }),
  fc.record({ type: fc.constantFrom('AND' as const, 'OR' as const), values: fc.array(fc.record({ type: fc.constantFrom('AND' as const, 'OR' as const), values: fc.array(filter, { minLength: 1, maxLength: 2 }) }), { minLength: 1, maxLength: 2 }) }),
)

export const MATHS = [
  'total', 'dau', 'weekly_active', 'monthly_active', 'unique_session', 'unique_group', 'first_time_for_user', 'first_matching_event_for_user',
  'sum', 'avg', 'min', 'max', 'median', 'p90', 'avg_count_per_actor', 'max_count_per_actor', 'median_count_per_actor',
] as const

const day = (n: number) => new Date(Date.UTC(2024, 2, 1) + n * 86_400_000).toISOString().slice(0, 10)

export const randomQuery: fc.Arbitrary<NaiveQuery> = fc.record({
  timezone: fc.constantFrom(...ZONES),
  weekStartDay: fc.constantFrom(0 as const, 1 as const),
  interval: fc.constantFrom('hour' as const, 'day' as const, 'day' as const, 'week' as const, 'month' as const),
  start: fc.integer({ min: 0, max: 30 }),
  length: fc.integer({ min: 0, max: 20 }),
  series: fc.array(fc.record({ event: fc.constantFrom<string | null>('$pageview', 'signup', null), math: fc.constantFrom(...MATHS), properties: optional(fc.array(filter, { maxLength: 1 })) }), { minLength: 1, maxLength: 2 }),
  properties: filters,
  breakdown: optional(fc.record({ type: fc.constantFrom('event' as const, 'person' as const), key: fc.constantFrom('$browser', 'plan', 'tier') })),
  breakdownLimit: optional(fc.integer({ min: 1, max: 3 })),
  compare: fc.boolean(),
  display: fc.constantFrom('ActionsLineGraph' as const, 'ActionsLineGraphCumulative' as const, 'BoldNumber' as const),
}).map((r) => {
  const interval = r.display === 'BoldNumber' ? 'day' : r.interval
  const length = interval === 'hour' ? Math.min(r.length, 2) : r.length
  // Active-user windows by the hour and over a whole range are not compared here (see the vectors).
  const series = r.series.map((s) => ((interval === 'hour' || r.display === 'BoldNumber') && (s.math === 'weekly_active' || s.math === 'monthly_active') ? { ...s, math: 'dau' } : s))
  const { start: _start, length: _length, ...rest } = r
  return { ...rest, interval, series, compare: r.compare && interval !== 'hour', dateFrom: day(r.start), dateTo: day(r.start + length) }
})

/** The engine's query node for a generated query. */
export const trendsNode = (q: NaiveQuery): Record<string, unknown> => ({
  kind: 'TrendsQuery',
  interval: q.interval,
  dateRange: { date_from: q.dateFrom, date_to: q.dateTo },
  series: q.series.map((s) => ({
    kind: 'EventsNode', event: s.event, math: s.math, properties: s.properties,
    ...(['sum', 'avg', 'min', 'max', 'median', 'p90'].includes(s.math) ? { math_property: 'amount' } : {}),
    ...(s.math === 'unique_group' ? { math_group_type_index: 0 } : {}),
  })),
  properties: q.properties,
  ...(q.breakdown ? { breakdownFilter: { breakdown: q.breakdown.key, breakdown_type: q.breakdown.type, breakdown_limit: q.breakdownLimit } } : {}),
  ...(q.compare ? { compareFilter: { compare: true } } : {}),
  trendsFilter: { display: q.display },
})
