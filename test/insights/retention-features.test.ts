import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runRetention } from '../../src/insights/retention/run-retention.js'
import type { RetentionQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at, ev } from './support/events.js'
import { TV5_EVENTS as TV5, active } from './support/vectors.js'
import type { QueryEvent, QueryInput } from '../../src/insights/engine/data.js'

const NOW = at('2024-02-01T00:00:00Z')
const retention = (query: Record<string, unknown>, events: QueryEvent[], input: QueryInput = NOW) =>
  runRetention(parseQueryNode({ kind: 'RetentionQuery', ...query }) as RetentionQuery, input, memorySource(events))
const counts = (rows: { values: { count: number }[] }[]) => rows.map((row) => row.values.map((v) => v.count))
const days3 = { dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' } }

t.test('cumulative retention counts a return at k in every cell up to k', async (t) => {
  const { results } = await retention({ retentionFilter: { totalIntervals: 3, cumulative: true }, ...days3 }, TV5)
  t.same(counts(results), [[2, 2, 2], [2, 1, 0], [3, 0, 0]])
})

t.test('without date_from the cohorts are the totalIntervals before date_to', async (t) => {
  const { results } = await retention({ retentionFilter: { totalIntervals: 3 }, dateRange: { date_to: '2024-01-03' } }, TV5)
  t.same(results.map((row) => row.date), ['2024-01-01T00:00:00Z', '2024-01-02T00:00:00Z', '2024-01-03T00:00:00Z'])
  t.same(counts(results), [[2, 1, 2], [2, 1, 0], [3, 0, 0]])
})

t.test('the default is seven intervals of a day', async (t) => {
  const { results } = await retention({ retentionFilter: {}, ...days3 }, TV5)
  t.equal(results.length, 3)
  t.equal(results[0]!.values.length, 7)
  t.same(results[0]!.values.map((v) => v.label), ['Day 0', 'Day 1', 'Day 2', 'Day 3', 'Day 4', 'Day 5', 'Day 6'])
})

t.test('weeks start on the environment week start day; months on the 1st', async (t) => {
  const events = [...active('a', ['2024-01-07', '2024-01-15']), ...active('b', ['2024-01-08'])]
  const sunday = await retention({ retentionFilter: { period: 'Week', totalIntervals: 2 }, dateRange: { date_from: '2024-01-07', date_to: '2024-01-14' } }, events)
  t.same(sunday.results.map((row) => [row.label, row.date]), [['Week 0', '2024-01-07T00:00:00Z'], ['Week 1', '2024-01-14T00:00:00Z']])
  t.same(counts(sunday.results), [[2, 1], [1, 0]])
  const monday = await retention({ retentionFilter: { period: 'Week', totalIntervals: 2 }, dateRange: { date_from: '2024-01-07', date_to: '2024-01-14' } }, events, at('2024-02-01T00:00:00Z', { weekStartDay: 1 }))
  t.same(monday.results.map((row) => row.date), ['2024-01-01T00:00:00Z', '2024-01-08T00:00:00Z'])
  t.same(counts(monday.results), [[1, 0], [1, 0]], 'the event of Monday 15 January is after the range')
  const months = await retention({ retentionFilter: { period: 'Month', totalIntervals: 2 }, dateRange: { date_from: '2024-01-15', date_to: '2024-02-10' } }, [...events, ...active('a', ['2024-02-03'])])
  t.same(months.results.map((row) => [row.label, row.date]), [['Month 0', '2024-01-01T00:00:00Z'], ['Month 1', '2024-02-01T00:00:00Z']])
  t.same(counts(months.results), [[2, 1], [1, 0]])
})

t.test('hour retention and a zone that is not UTC', async (t) => {
  const events = [ev('$pageview', '2024-01-01T15:10:00', 'a'), ev('$pageview', '2024-01-01T16:20:00', 'a'), ev('$pageview', '2024-01-01T16:30:00', 'b')]
  const { results } = await retention({ retentionFilter: { period: 'Hour', totalIntervals: 2 }, dateRange: { date_from: '2024-01-01T10:00:00', date_to: '2024-01-01T11:00:00' } },
    events, at('2024-02-01T00:00:00Z', { timezone: 'America/New_York' }))
  t.same(results.map((row) => [row.label, row.date]), [['Hour 0', '2024-01-01T10:00:00-05:00'], ['Hour 1', '2024-01-01T11:00:00-05:00']])
  t.same(counts(results), [[1, 1], [2, 0]])
})

t.test('returning and target entities have their own events and filters', async (t) => {
  const events = [
    ev('signup', '2024-01-01T10:00:00', 'a', { plan: 'pro' }), ev('buy', '2024-01-02T10:00:00', 'a'),
    ev('signup', '2024-01-01T10:00:00', 'b', { plan: 'free' }), ev('buy', '2024-01-02T10:00:00', 'b'),
    ev('buy', '2024-01-01T10:00:00', 'c'),
  ]
  const { results } = await retention({
    retentionFilter: { totalIntervals: 2, targetEntity: { id: 'signup', type: 'events', properties: [{ type: 'event', key: 'plan', value: 'pro' }] }, returningEntity: { id: 'buy', type: 'events' } },
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' },
  }, events)
  t.same(counts(results), [[1, 1], [0, 0]])
})

t.test('minimumOccurrences asks for that many returning events in an interval', async (t) => {
  const events = [...active('a', ['2024-01-01', '2024-01-02', '2024-01-02']), ...active('b', ['2024-01-01', '2024-01-02'])]
  const { results } = await retention({ retentionFilter: { totalIntervals: 2, minimumOccurrences: 2 }, dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' } }, events)
  t.same(counts(results), [[2, 1], [2, 0]])
})

t.test('breakdowns repeat the rows per value, ranked by cohort sizes, the rest in Other', async (t) => {
  const events = [
    ...active('a', ['2024-01-01', '2024-01-02'], { $browser: 'Chrome' }), ...active('b', ['2024-01-01'], { $browser: 'Chrome' }),
    ...active('c', ['2024-01-01']), ...active('d', ['2024-01-02'], { $browser: 'Safari' }),
  ]
  const query = { retentionFilter: { totalIntervals: 2 }, dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' }, breakdownFilter: { breakdown: '$browser' } }
  const { results } = await retention(query, events)
  t.same(results.map((row) => [row.breakdown_value, row.label, row.values.map((v) => v.count)]), [
    ['Chrome', 'Day 0', [2, 1]], ['Chrome', 'Day 1', [1, 0]], ['', 'Day 0', [1, 0]], ['', 'Day 1', [0, 0]], ['Safari', 'Day 0', [0, 0]], ['Safari', 'Day 1', [1, 0]],
  ])
  const limited = await retention({ ...query, breakdownFilter: { breakdown: '$browser', breakdown_limit: 1 } }, events)
  t.same(limited.results.map((row) => [row.breakdown_value, row.values.map((v) => v.count)]), [
    ['Chrome', [2, 1]], ['Chrome', [1, 0]], ['$$_posthog_breakdown_other_$$', [1, 0]], ['$$_posthog_breakdown_other_$$', [1, 0]],
  ])
})

t.test('retention by group counts groups', async (t) => {
  const events = [ev('$pageview', '2024-01-01T10:00:00', 'a', { $group_0: 'acme' }), ev('$pageview', '2024-01-02T10:00:00', 'b', { $group_0: 'acme' }), ev('$pageview', '2024-01-01T10:00:00', 'c')]
  const { results } = await retention({ retentionFilter: { totalIntervals: 2 }, dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' }, aggregation_group_type_index: 0 }, events)
  t.same(counts(results), [[1, 1], [1, 0]])
})
