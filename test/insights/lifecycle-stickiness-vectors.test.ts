import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runQuery } from '../../src/insights/engine/run-query.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at } from './support/events.js'
import { TV6_EVENTS, TV7_EVENTS as TV7 } from './support/vectors.js'
import type { QueryEvent } from '../../src/insights/engine/data.js'

const NOW = at('2024-02-01T00:00:00Z')
const run = async (query: Record<string, unknown>, events: QueryEvent[]) => (await runQuery(parseQueryNode(query), NOW, memorySource(events))).results as any[]

t.test('TV6: lifecycle counts new, returning, resurrecting and dormant persons per day', async (t) => {
  const events = TV6_EVENTS
  const results = await run({
    kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day',
    dateRange: { date_from: '2024-01-02', date_to: '2024-01-05' },
  }, events)
  t.same(results.map((s) => [s.status, s.data, s.count]), [
    ['new', [1, 0, 0, 0], 1], ['returning', [1, 1, 0, 0], 2], ['resurrecting', [0, 0, 1, 1], 2], ['dormant', [0, -1, -1, -1], -3],
  ])
  t.equal(results[0].label, '$pageview - new')
  t.same(results[0].days, ['2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05'])
  t.same(results[0].action, { id: '$pageview', name: '$pageview', type: 'events', order: 0, math: 'total' })
})

const stickiness = { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' } }

t.test('TV7: stickiness counts persons by the number of days they were active', async (t) => {
  const [series] = await run(stickiness, TV7)
  t.same(series.days, [1, 2, 3, 4, 5])
  t.same(series.data, [2, 1, 1, 0, 0])
  t.equal(series.count, 4)
  t.same(series.labels, ['1 day', '2 days', '3 days', '4 days', '5 days'])
  t.equal(series.label, '$pageview')
})

t.test('TV7: cumulative stickiness counts persons active at least n days', async (t) => {
  const [series] = await run({ ...stickiness, stickinessFilter: { computedAs: 'cumulative' } }, TV7)
  t.same(series.data, [4, 2, 1, 0, 0])
  t.equal(series.count, 4)
  t.equal(series.labels[0], '1 day or more')
  t.equal(series.labels[1], '2 days or more')
})

t.test('stickiness criteria count only days with enough events', async (t) => {
  const [series] = await run({ ...stickiness, stickinessFilter: { stickinessCriteria: { operator: 'gte', value: 3 } } }, TV7)
  t.same(series.data, [1, 0, 0, 0, 0], 'only u4 had three events in one day')
  t.equal(series.count, 1)
})
