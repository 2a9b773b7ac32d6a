import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runFunnels } from '../../src/insights/funnels/run-funnels.js'
import type { FunnelsQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at } from './support/events.js'
import { TV4_EVENTS as TV4 } from './support/vectors.js'
import type { QueryEvent } from '../../src/insights/engine/data.js'

const NOW = at('2024-02-15T00:00:00Z')
const funnel = (query: Record<string, unknown>, events: QueryEvent[]) =>
  runFunnels(parseQueryNode({ kind: 'FunnelsQuery', ...query }) as FunnelsQuery, NOW, memorySource(events))

const steps = [{ kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }]
const tv4 = (funnelOrderType: string) => funnel({
  series: steps, dateRange: { date_from: '2024-01-01', date_to: '2024-01-31' },
  funnelsFilter: { funnelOrderType, funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
}, TV4)

t.test('TV4: an ordered funnel counts p1, p4 and p5 as converted', async (t) => {
  const results = (await tv4('ordered')).results as any[]
  t.same(results.map((s) => s.count), [5, 3])
  t.equal(results[1].average_conversion_time, 59000)
  t.equal(results[1].median_conversion_time, 3600)
  t.equal(results[0].average_conversion_time, null)
  t.equal(results[0].median_conversion_time, null)
  t.match(results[0], { action_id: 'signup', name: 'signup', custom_name: null, order: 0, people: [], count: 5, type: 'events' })
})

t.test('TV4: a strict funnel is broken by any event between the steps', async (t) => {
  const results = (await tv4('strict')).results as any[]
  t.same(results.map((s) => s.count), [5, 2])
  t.equal(results[1].average_conversion_time, 2100)
  t.equal(results[1].median_conversion_time, 2100)
})

t.test('TV4: an unordered funnel takes the steps in any order', async (t) => {
  const results = (await tv4('unordered')).results as any[]
  t.same(results.map((s) => s.count), [5, 4])
  t.same(results.map((s) => s.name), ['Completed 1 step', 'Completed 2 steps'])
  t.same(results.map((s) => s.action_id), [null, null])
  t.equal(results[1].average_conversion_time, 109050)
  t.equal(results[1].median_conversion_time, 88200)
})
