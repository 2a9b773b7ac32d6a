import fc from 'fast-check'
import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runQuery } from '../../src/insights/engine/run-query.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { naiveLifecycle, naiveStickiness, type NaiveQuery } from './support/naive-insights.js'
import { agreeOnRandomInputs } from './support/agree.js'
import { randomEvents, randomQuery } from './support/random-insights.js'
import type { QueryEvent } from '../../src/insights/engine/data.js'

const inputOf = (q: NaiveQuery) => ({ environment: { timezone: q.timezone, weekStartDay: q.weekStartDay, testAccountFilters: [], groupTypes: [] }, now: Date.parse('2024-05-01T00:00:00Z') })
const base = (q: NaiveQuery) => ({
  interval: q.interval, dateRange: { date_from: q.dateFrom, date_to: q.dateTo }, properties: q.properties,
})

const stickiness = async (events: QueryEvent[], q: NaiveQuery, cumulative: boolean) => {
  const node = parseQueryNode({
    kind: 'StickinessQuery', ...base(q), series: q.series.map((s) => ({ kind: 'EventsNode', event: s.event, properties: s.properties })),
    stickinessFilter: { computedAs: cumulative ? 'cumulative' : 'non_cumulative' },
  })
  const engine = ((await runQuery(node, inputOf(q), memorySource(events))).results as { data: number[] }[]).map((r) => r.data)
  return [engine, naiveStickiness(q, events, cumulative)] as const
}

const lifecycle = async (events: QueryEvent[], q: NaiveQuery) => {
  const node = parseQueryNode({ kind: 'LifecycleQuery', ...base(q), series: [{ kind: 'EventsNode', event: q.series[0]!.event, properties: q.series[0]!.properties }] })
  const engine = Object.fromEntries(((await runQuery(node, inputOf(q), memorySource(events))).results as { status: string; data: number[] }[]).map((r) => [r.status, r.data]))
  return [engine, naiveLifecycle(q, events)] as const
}

const queries = randomQuery.filter((q) => q.interval !== 'hour')

t.test('stickiness agrees with a brute-force count of active intervals', async (t) => {
  await agreeOnRandomInputs(t, fc.tuple(randomEvents, queries, fc.boolean()), ([events, q, cumulative]) => stickiness(events, q, cumulative), { runs: 300, seed: 20240302 })
})

t.test('lifecycle agrees with a brute-force classification of each person', async (t) => {
  await agreeOnRandomInputs(t, fc.tuple(randomEvents, queries), ([events, q]) => lifecycle(events, q), { runs: 300, seed: 20240302 })
})
