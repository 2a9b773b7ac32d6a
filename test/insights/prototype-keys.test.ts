import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runQuery } from '../../src/insights/engine/run-query.js'
import { runEventsQuery } from '../../src/insights/events-query/run-events-query.js'
import type { EventsQuery } from '../../src/insights/schema/other-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at, ev } from './support/events.js'

// Properties are objects parsed from JSON: `toString` or `constructor` is on every one of them
// through Object.prototype, yet no event has such a property unless it sent one.
const NOW = at('2024-02-01T00:00:00Z')
const events = [
  ev('$pageview', '2024-01-01T10:00:00', 'u1', { plan: 'pro' }, { personProperties: { email: 'a@example.com' } }),
  ev('$pageview', '2024-01-01T11:00:00', 'u2', { plan: 'free', constructor: 'sent' }),
]
const oneDay = { date_from: '2024-01-01', date_to: '2024-01-01' }

const trends = async (query: Record<string, unknown>) => {
  const parsed = parseQueryNode({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: oneDay, ...query })
  return (await runQuery(parsed, NOW, memorySource(events))).results as { count: number; breakdown_value?: unknown; aggregated_value?: number }[]
}

t.test('a property filter on a name Object.prototype holds matches only events that sent it', async (t) => {
  for (const [type, key, expected] of [['event', 'toString', 0], ['event', 'hasOwnProperty', 0], ['event', 'constructor', 1], ['person', 'valueOf', 0], ['person', 'constructor', 0]] as const) {
    const [set] = await trends({ properties: [{ type, key, operator: 'is_set' }] })
    t.equal(set!.count, expected, `${type} ${key} is_set`)
    const [notSet] = await trends({ properties: [{ type, key, operator: 'is_not_set' }] })
    t.equal(notSet!.count, 2 - expected, `${type} ${key} is_not_set`)
  }
})

t.test('a breakdown by such a name puts the events that lack it under none', async (t) => {
  const results = await trends({ breakdownFilter: { breakdown: 'toString', breakdown_type: 'event' } })
  t.same(results.map((series) => [series.breakdown_value, series.count]), [['$$_posthog_breakdown_null_$$', 2]])
  const sent = await trends({ breakdownFilter: { breakdown: 'constructor', breakdown_type: 'event' } })
  t.same(sent.map((series) => [series.breakdown_value, series.count]).sort(), [['$$_posthog_breakdown_null_$$', 1], ['sent', 1]])
})

t.test('math on such a property reads nothing from events that lack it', async (t) => {
  const [sum] = await trends({ series: [{ kind: 'EventsNode', event: '$pageview', math: 'sum', math_property: 'valueOf' }] })
  t.equal(sum!.count, 0)
})

t.test('an events query selects such a property as null unless the event sent it', async (t) => {
  const query = parseQueryNode({ kind: 'EventsQuery', select: ['properties.toString', 'properties.constructor', 'person.properties.valueOf'], orderBy: ['timestamp ASC'], after: '2024-01-01', before: '2024-01-02' }) as EventsQuery
  const response = await runEventsQuery(query, NOW, memorySource(events))
  t.same(response.results, [[null, null, null], [null, 'sent', null]])
})
