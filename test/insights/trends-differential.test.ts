import fc from 'fast-check'
import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import type { TrendsQuery } from '../../src/insights/schema/insight-queries.js'
import { runTrends } from '../../src/insights/trends/run-trends.js'
import { NaiveTrends, type NaiveQuery, type NaiveResult } from './support/naive-insights.js'
import type { QueryEvent } from '../../src/insights/engine/data.js'
import { randomEvents, randomQuery, trendsNode } from './support/random-insights.js'
import { agreeOnRandomInputs } from './support/agree.js'

const round = (n: number | undefined) => (n === undefined ? undefined : Math.round(n * 1e9) / 1e9)
const comparable = (r: Partial<NaiveResult> & { data: number[] | null }) => ({
  label: r.label, days: r.days, data: (r.data ?? []).map(round), count: round(r.count), aggregated_value: round(r.aggregated_value),
  breakdown_value: r.breakdown_value, compare_label: r.compare_label,
})

const both = async (events: QueryEvent[], q: NaiveQuery) => {
  const node = parseQueryNode(trendsNode(q)) as TrendsQuery
  const input = { environment: { timezone: q.timezone, weekStartDay: q.weekStartDay, testAccountFilters: [], groupTypes: [] }, now: Date.parse('2024-05-01T00:00:00Z') }
  const engine = (await runTrends(node, input, memorySource(events))).results.map((r) => comparable(r as never))
  const naive = new NaiveTrends(q, events).results().map(comparable)
  return [engine, naive] as const
}

t.test('trends agree with a brute-force evaluator of PostHog\'s documented rules on random events and queries', async (t) => {
  await agreeOnRandomInputs(t, fc.tuple(randomEvents, randomQuery), ([events, q]) => both(events, q), { runs: 400, seed: 20240301 })
})
