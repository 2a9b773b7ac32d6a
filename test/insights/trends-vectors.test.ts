import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import type { TrendsQuery } from '../../src/insights/schema/insight-queries.js'
import { runTrends } from '../../src/insights/trends/run-trends.js'
import { at, ev } from './support/events.js'
import { TV1_EVENTS as TV1 } from './support/vectors.js'
import type { QueryEvent, QueryInput } from '../../src/insights/engine/data.js'

const trends = (query: Record<string, unknown>, events: QueryEvent[], input: QueryInput = at('2024-02-01T00:00:00Z')) =>
  runTrends(parseQueryNode({ kind: 'TrendsQuery', ...query }) as TrendsQuery, input, memorySource(events))

const week = { date_from: '2024-01-01', date_to: '2024-01-07' }

t.test('TV1: total counts events per day over the seven days', async (t) => {
  const { results } = await trends({ series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }], interval: 'day', dateRange: week }, TV1)
  t.equal(results.length, 1)
  const [series] = results
  t.same(series!.days, ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07'])
  t.same(series!.data, [3, 0, 1, 0, 0, 0, 1])
  t.equal(series!.count, 5)
  t.same(series!.labels, ['1-Jan-2024', '2-Jan-2024', '3-Jan-2024', '4-Jan-2024', '5-Jan-2024', '6-Jan-2024', '7-Jan-2024'])
  t.equal(series!.label, '$pageview')
  t.match(series!.action, { id: '$pageview', type: 'events', order: 0, name: '$pageview', math: 'total' })
})

t.test('TV1: dau counts distinct persons per day and sums the days', async (t) => {
  const { results } = await trends({ series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: week }, TV1)
  t.same(results[0]!.data, [2, 0, 1, 0, 0, 0, 1])
  t.equal(results[0]!.count, 4)
})

t.test('TV1: dau as a BoldNumber counts distinct persons over the whole range', async (t) => {
  const { results } = await trends({
    series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: week, trendsFilter: { display: 'BoldNumber' },
  }, TV1)
  t.equal(results[0]!.aggregated_value, 3)
  t.same(results[0]!.data, [])
  t.equal(results[0]!.count, 0)
  t.notOk('labels' in results[0]!)
})

t.test('TV2: buckets are local days of the environment time zone', async (t) => {
  const events = ['2024-01-01T04:59:00', '2024-01-01T05:00:00', '2024-01-02T03:00:00', '2024-01-03T04:30:00', '2024-01-03T05:00:00']
    .map((time) => ev('$pageview', time, 'u1'))
  const response = await trends({ series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' } },
    events, at('2024-02-01T00:00:00Z', { timezone: 'America/New_York' }))
  t.same(response.results[0]!.days, ['2024-01-01', '2024-01-02'])
  t.same(response.results[0]!.data, [2, 1])
  t.equal(response.results[0]!.count, 3)
  t.equal(response.timezone, 'America/New_York')
})

const browsers = (names: (string | null)[]): QueryEvent[] =>
  names.map((name) => ev('$pageview', '2024-01-01T12:00:00', 'u1', name === null ? {} : { $browser: name }))
const oneDay = { date_from: '2024-01-01', date_to: '2024-01-01' }

t.test('TV3a: values beyond the breakdown limit are merged into Other', async (t) => {
  const events = browsers(['Chrome', 'Chrome', 'Chrome', 'Firefox', 'Firefox', 'Safari', 'Edge'])
  const query = { series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: oneDay, breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } }
  const response = await trends(query, events)
  t.same(response.results.map((s) => [s.breakdown_value, s.label, s.data]), [
    ['Chrome', 'Chrome', [3]], ['Firefox', 'Firefox', [2]], ['$$_posthog_breakdown_other_$$', '$$_posthog_breakdown_other_$$', [2]],
  ])
  t.equal(response.hasMore, true)
  const hidden = await trends({ ...query, breakdownFilter: { ...query.breakdownFilter, breakdown_hide_other_aggregation: true } }, events)
  t.same(hidden.results.map((s) => s.breakdown_value), ['Chrome', 'Firefox'])
  t.equal(hidden.hasMore, true)
})

t.test('TV3b: a missing and an empty value are the null value, listed after ordinary values', async (t) => {
  const events = [...browsers(['Chrome', 'Chrome', null]), ev('$pageview', '2024-01-01T12:00:00', 'u1', { $browser: '' })]
  const response = await trends({ series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: oneDay, breakdownFilter: { breakdown: '$browser' } }, events)
  t.same(response.results.map((s) => [s.breakdown_value, s.data]), [['Chrome', [2]], ['$$_posthog_breakdown_null_$$', [2]]])
  t.equal(response.hasMore, false)
  const two = await trends({
    series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }], dateRange: oneDay, breakdownFilter: { breakdown: '$browser' },
  }, [...events, ev('signup', '2024-01-01T12:00:00', 'u1', { $browser: 'Chrome' })])
  t.same(two.results.map((s) => s.label), ['$pageview - Chrome', '$pageview - $$_posthog_breakdown_null_$$', 'signup - Chrome'])
})

t.test('TV8: a formula combines series bucket by bucket', async (t) => {
  const events = [
    ev('$pageview', '2024-01-01T01:00:00', 'u1'), ev('$pageview', '2024-01-01T02:00:00', 'u1'), ev('$pageview', '2024-01-01T03:00:00', 'u1'),
    ev('$pageview', '2024-01-03T01:00:00', 'u1'), ev('signup', '2024-01-01T01:00:00', 'u1'), ev('signup', '2024-01-02T01:00:00', 'u1'),
  ]
  const { results } = await trends({
    series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }],
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' }, trendsFilter: { formulaNodes: [{ formula: 'A+B' }] },
  }, events)
  t.equal(results.length, 1)
  t.equal(results[0]!.label, 'Formula (A+B)')
  t.equal(results[0]!.action, null)
  t.same(results[0]!.data, [4, 1, 1])
  t.equal(results[0]!.count, 6)
})

t.test('a formula over a breakdown that found no values gives no series, with or without a total value', async (t) => {
  for (const display of ['ActionsLineGraph', 'BoldNumber']) {
    const { results } = await trends({
      series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }], breakdownFilter: { breakdown: 'plan' },
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' }, trendsFilter: { display, formulaNodes: [{ formula: 'A*100+B' }] },
    }, [ev('$pageview', '2023-12-01T01:00:00', 'u1', { plan: 'pro' })])
    t.same(results, [], display)
  }
})

t.test('TV10: without a date range a day query covers eight days, and -24h by hour 25 hours', async (t) => {
  const input = at('2024-01-10T15:00:00Z')
  const days = await trends({ series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day' }, [], input)
  t.same(days.results[0]!.days, ['2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07', '2024-01-08', '2024-01-09', '2024-01-10'])
  const hours = await trends({ series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'hour', dateRange: { date_from: '-24h' } }, [], input)
  t.equal(hours.results[0]!.days.length, 25)
  t.equal(hours.results[0]!.days[0], '2024-01-09 15:00:00')
  t.equal(hours.results[0]!.days[24], '2024-01-10 15:00:00')
  t.equal(hours.results[0]!.labels![0], '9-Jan 15:00')
})
