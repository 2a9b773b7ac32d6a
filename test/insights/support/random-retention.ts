import fc from 'fast-check'
import type { QueryEvent } from '../../../src/insights/engine/data.js'
import { addDays } from './naive-calendar.js'
import type { NaiveFilter } from './naive-filters.js'
import type { NaiveRetention } from './naive-retention.js'

const START = Date.parse('2023-12-28T00:00:00Z')
const BUSY = Date.parse('2024-01-02T00:00:00Z')
const MINUTE = 60_000

/** Three persons' events from 28 December to 18 January, half of them on 2–4 January (for hourly cohorts). */
export const retentionEvents: fc.Arbitrary<QueryEvent[]> = fc.array(fc.record({
  person: fc.integer({ min: 0, max: 2 }),
  event: fc.constantFrom('view', 'view', 'signup'),
  at: fc.oneof(fc.integer({ min: 0, max: 21 * 24 * 60 }).map((m) => START + m * MINUTE), fc.integer({ min: 0, max: 3 * 24 * 60 }).map((m) => BUSY + m * MINUTE)),
  browser: fc.constantFrom<string | null>('Chrome', 'Safari', null),
}), { minLength: 25, maxLength: 70, size: 'max' }).map((rows) => rows.map((row, i) => ({
  uuid: `r${i}`, event: row.event, timestamp: row.at, distinctId: `p${row.person}`, personId: `p${row.person}`,
  personCreatedAt: START, properties: row.browser === null ? {} : { $browser: row.browser }, personProperties: {},
})))

const entity = fc.record({
  event: fc.constantFrom('view', 'view', 'view', 'signup'),
  filter: fc.option(fc.constant<NaiveFilter>({ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }), { nil: undefined, freq: 3 }),
}).map((e) => (e.filter === undefined ? { event: e.event } : e))

export const retentionQuery: fc.Arbitrary<NaiveRetention> = fc.record({
  timezone: fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata'),
  weekStartDay: fc.constantFrom(0 as const, 1 as const),
  period: fc.constantFrom('Hour' as const, 'Day' as const, 'Day' as const, 'Week' as const, 'Month' as const),
  totalIntervals: fc.integer({ min: 1, max: 6 }).map((n) => Math.max(n, 2)),
  start: fc.integer({ min: 0, max: 12 }),
  length: fc.integer({ min: 0, max: 30 }),
  target: entity,
  returning: entity,
  firstTime: fc.boolean(),
  cumulative: fc.boolean(),
  minimumOccurrences: fc.constantFrom(1, 1, 2),
  breakdownLimit: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
}).map(({ start, length, breakdownLimit, ...r }) => {
  const from = r.period === 'Hour' ? '2024-01-02' : addDays('2023-12-30', start)
  const to = r.period === 'Hour' ? addDays(from, length % 2) : addDays(from, r.period === 'Day' ? length % 12 : length)
  return { ...r, dateFrom: from, dateTo: to, ...(breakdownLimit === undefined ? {} : { breakdownLimit }) }
})

/** The engine's query node for a generated retention query. */
export const retentionNode = (q: NaiveRetention): Record<string, unknown> => {
  const entityNode = (e: NaiveRetention['target']) => ({ id: e.event, type: 'events', ...(e.filter ? { properties: [e.filter] } : {}) })
  return {
    kind: 'RetentionQuery',
    dateRange: { date_from: q.dateFrom, date_to: q.dateTo },
    retentionFilter: {
      period: q.period, totalIntervals: q.totalIntervals, targetEntity: entityNode(q.target), returningEntity: entityNode(q.returning),
      retentionType: q.firstTime ? 'retention_first_time' : 'retention_recurring', cumulative: q.cumulative, minimumOccurrences: q.minimumOccurrences,
    },
    ...(q.breakdownLimit === undefined ? {} : { breakdownFilter: { breakdown: '$browser', breakdown_limit: q.breakdownLimit } }),
  }
}
