import fc from 'fast-check'
import t from 'tap'
import { agreeOnRandomInputs } from './support/agree.js'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runRetention } from '../../src/insights/retention/run-retention.js'
import type { RetentionQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { naiveRetention, type NaiveRetention } from './support/naive-retention.js'
import { retentionEvents, retentionNode, retentionQuery } from './support/random-retention.js'
import type { QueryEvent } from '../../src/insights/engine/data.js'


const both = async (events: QueryEvent[], q: NaiveRetention) => {
  const input = { environment: { timezone: q.timezone, weekStartDay: q.weekStartDay, testAccountFilters: [], groupTypes: [] }, now: Date.parse('2024-03-01T00:00:00Z') }
  const { results } = await runRetention(parseQueryNode(retentionNode(q)) as RetentionQuery, input, memorySource(events))
  const engine = results.map((row) => ({ label: row.label, values: row.values.map((v) => v.count), ...(row.breakdown_value === undefined ? {} : { breakdown_value: row.breakdown_value }) }))
  return [engine, naiveRetention(q, events)] as const
}

t.test('retention agrees with a brute-force count per actor and cohort: first time and recurring, every period, cumulative', async (t) => {
  await agreeOnRandomInputs(t, fc.tuple(retentionEvents, retentionQuery), ([events, q]) => both(events, q), { runs: 600, seed: 20240306 })
})
