import fc from 'fast-check'
import t from 'tap'
import { agreeOnRandomInputs } from './support/agree.js'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import type { FunnelStep } from '../../src/insights/funnels/funnel-results.js'
import { runFunnels } from '../../src/insights/funnels/run-funnels.js'
import type { FunnelsQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { naiveFunnel, type NaiveFunnel, type NaiveResult } from './support/naive-funnels.js'
import { funnelEvents, funnelNode, funnelQuery } from './support/random-funnels.js'
import type { QueryEvent } from '../../src/insights/engine/data.js'

const round = (n: number | null) => (n === null ? null : Math.round(n * 1e6) / 1e6)

const engineResults = async (events: QueryEvent[], q: NaiveFunnel): Promise<NaiveResult[]> => {
  const input = { environment: { timezone: q.timezone, weekStartDay: 0 as const, testAccountFilters: [], groupTypes: [] }, now: Date.parse('2024-03-01T00:00:00Z') }
  const { results } = await runFunnels(parseQueryNode(funnelNode(q)) as FunnelsQuery, input, memorySource(events))
  const lists = (q.breakdown ? results : [results]) as FunnelStep[][]
  return lists.map((steps) => ({
    value: q.breakdown ? (steps[0]!.breakdown_value as string[]) : null,
    steps: steps.map((s) => ({ count: s.count, average: round(s.average_conversion_time), median: round(s.median_conversion_time) })),
  }))
}

const both = async (events: QueryEvent[], q: NaiveFunnel) => {
  const naive = naiveFunnel(q, events).map((r) => ({ ...r, steps: r.steps.map((s) => ({ ...s, average: round(s.average), median: round(s.median) })) }))
  return [await engineResults(events, q), naive] as const
}

t.test('funnels agree with a brute-force search of every chain, for the three orders, windows, exclusions and attributions', async (t) => {
  await agreeOnRandomInputs(t, fc.tuple(funnelEvents, funnelQuery), ([events, q]) => both(events, q), { runs: 600, seed: 20240305 })
})
