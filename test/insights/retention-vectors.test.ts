import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runRetention } from '../../src/insights/retention/run-retention.js'
import type { RetentionQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at } from './support/events.js'
import { TV5_EVENTS as TV5 } from './support/vectors.js'
import type { QueryEvent } from '../../src/insights/engine/data.js'

const NOW = at('2024-02-01T00:00:00Z')
const retention = (filter: Record<string, unknown>, events: QueryEvent[], extra: Record<string, unknown> = {}) =>
  runRetention(parseQueryNode({ kind: 'RetentionQuery', retentionFilter: filter, ...extra }) as RetentionQuery, NOW, memorySource(events))

const tv5 = (retentionType: string) => retention({
  period: 'Day', totalIntervals: 3, retentionType,
  targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' },
}, TV5, { dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' } })

t.test('TV5: recurring retention counts a cohort for every day with the target event', async (t) => {
  const { results } = await tv5('retention_recurring')
  t.same(results.map((row) => row.values.map((v) => v.count)), [[2, 1, 2], [2, 1, 0], [3, 0, 0]])
  t.same(results.map((row) => row.label), ['Day 0', 'Day 1', 'Day 2'])
  t.equal(results[0]!.date, '2024-01-01T00:00:00Z')
  t.same(results[0]!.values.map((v) => v.label), ['Day 0', 'Day 1', 'Day 2'])
})

t.test('TV5: first-time retention places each person in the day of their first event', async (t) => {
  const { results } = await tv5('retention_first_time')
  t.same(results.map((row) => row.values.map((v) => v.count)), [[2, 1, 2], [1, 0, 0], [1, 0, 0]])
})
