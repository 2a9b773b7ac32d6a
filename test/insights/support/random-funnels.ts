import fc from 'fast-check'
import type { QueryEvent } from '../../../src/insights/engine/data.js'
import type { NaiveFilter } from './naive-filters.js'
import type { NaiveFunnel } from './naive-funnels.js'

const SLOT = 6 * 3_600_000
const BASE = Date.parse('2023-12-31T00:00:00Z')

/**
 * Three persons' events on a six-hour grid from 31 December to 5 January, so that events
 * share instants, sit on window bounds and fall on both sides of the date range.
 */
export const funnelEvents: fc.Arbitrary<QueryEvent[]> = fc.array(fc.record({
  person: fc.integer({ min: 0, max: 2 }),
  event: fc.constantFrom('a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'x'),
  slot: fc.integer({ min: 0, max: 20 }),
  browser: fc.constantFrom<string | null>('Chrome', 'Safari', '', null),
}), { minLength: 12, maxLength: 32, size: "max" }).map((rows) => rows.map((row, i) => ({
  uuid: `f${i}`, event: row.event, timestamp: BASE + row.slot * SLOT, distinctId: `p${row.person}`, personId: `p${row.person}`,
  personCreatedAt: BASE, properties: row.browser === null ? {} : { $browser: row.browser }, personProperties: {},
})))

const stepFilter: fc.Arbitrary<NaiveFilter | undefined> = fc.option(fc.record({
  type: fc.constant('event' as const), key: fc.constant('$browser'), operator: fc.constantFrom('exact', 'is_not'), value: fc.constant('Chrome'),
}), { nil: undefined, freq: 3 })

export const funnelQuery: fc.Arbitrary<NaiveFunnel> = fc.record({
  timezone: fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata'),
  days: fc.integer({ min: 1, max: 4 }),
  steps: fc.array(fc.record({ event: fc.constantFrom('a', 'a', 'b', 'b', 'c'), filter: stepFilter }), { minLength: 2, maxLength: 3 }),
  order: fc.constantFrom('ordered' as const, 'strict' as const, 'unordered' as const),
  window: fc.constantFrom(6, 24, 48, 96, 96).map((hours) => hours * 3_600_000),
  exclusion: fc.option(fc.record({ from: fc.nat(), span: fc.nat() }), { nil: undefined, freq: 2 }),
  breakdown: fc.option(fc.record({
    attribution: fc.constantFrom('first_touch' as const, 'last_touch' as const, 'all_events' as const, 'step' as const),
    step: fc.nat(), limit: fc.integer({ min: 1, max: 3 }),
  }), { nil: undefined, freq: 2 }),
}).map((r) => {
  const n = r.steps.length
  const exclusions = r.exclusion === undefined ? [] : r.order === 'unordered' ? [{ event: 'x', from: 0, to: n - 1 }]
    : [{ event: 'x', from: r.exclusion.from % (n - 1), to: Math.min(n - 1, (r.exclusion.from % (n - 1)) + 1 + (r.exclusion.span % (n - 1))) }]
  const breakdown = r.breakdown === undefined ? undefined : { ...r.breakdown, step: r.order === 'unordered' ? 0 : r.breakdown.step % n }
  return {
    timezone: r.timezone, dateFrom: '2024-01-01', dateTo: `2024-01-${String(r.days).padStart(2, '0')}`,
    steps: r.steps.map((s) => (s.filter === undefined ? { event: s.event } : { event: s.event, filter: s.filter })),
    order: r.order, windowMs: r.window, exclusions, ...(breakdown ? { breakdown } : {}),
  }
})

/** The engine's query node for a generated funnel. */
export const funnelNode = (q: NaiveFunnel): Record<string, unknown> => ({
  kind: 'FunnelsQuery',
  dateRange: { date_from: q.dateFrom, date_to: q.dateTo },
  series: q.steps.map((s) => ({ kind: 'EventsNode', event: s.event, ...(s.filter ? { properties: [s.filter] } : {}) })),
  funnelsFilter: {
    funnelOrderType: q.order, funnelWindowInterval: q.windowMs / 3_600_000, funnelWindowIntervalUnit: 'hour',
    exclusions: q.exclusions.map((x) => ({ kind: 'EventsNode', event: x.event, funnelFromStep: x.from, funnelToStep: x.to })),
    ...(q.breakdown ? { breakdownAttributionType: q.breakdown.attribution, breakdownAttributionValue: q.breakdown.step } : {}),
  },
  ...(q.breakdown ? { breakdownFilter: { breakdown: '$browser', breakdown_limit: q.breakdown.limit } } : {}),
})
