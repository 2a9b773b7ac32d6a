import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runQuery } from '../../src/insights/engine/run-query.js'
import { QueryRefused } from '../../src/insights/errors.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at, ev } from './support/events.js'
import type { QueryEvent, QueryInput } from '../../src/insights/engine/data.js'

const PLANS: QueryEvent[] = [{ plan: 'pro' }, { plan: 'Pro' }, { plan: 'free' }, {}, { plan: 5 }]
  .map((properties) => ev('$pageview', '2024-01-01T12:00:00', 'u1', properties))

const count = async (properties: unknown, events = PLANS, input: QueryInput = at('2024-02-01T00:00:00Z')): Promise<number> => {
  const query = parseQueryNode({
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], properties,
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-01' },
  })
  const { results } = await runQuery(query, input, memorySource(events))
  return (results as { count: number }[])[0]!.count
}

const plan = (operator: string | undefined, value?: unknown) => [{ type: 'event', key: 'plan', ...(operator ? { operator } : {}), ...(value === undefined ? {} : { value }) }]

t.test('TV9: operators on an untyped property compare its text', async (t) => {
  t.equal(await count(plan('exact', 'pro')), 1, 'exact is case-sensitive')
  t.equal(await count(plan(undefined, 'pro')), 1, 'exact is the default operator')
  t.equal(await count(plan('exact', ['pro', 'free'])), 2, 'a list is any of')
  t.equal(await count(plan('is_not', 'pro')), 4, 'is_not matches a missing property')
  t.equal(await count(plan('icontains', 'PRO')), 2)
  t.equal(await count(plan('regex', '^p')), 1)
  t.equal(await count(plan('is_set')), 4)
  t.equal(await count(plan('is_not_set')), 1)
  t.equal(await count(plan('exact', '5')), 1, 'a number compares as its text')
})

t.test('TV9: AND/OR property groups', async (t) => {
  const group = (type: string) => ({ type, values: [{ type: 'AND', values: plan('exact', 'pro') }, { type: 'AND', values: plan('exact', 'free') }] })
  t.equal(await count(group('OR')), 2)
  t.equal(await count(group('AND')), 0)
})

t.test('numeric, negative and list operators follow HogQL', async (t) => {
  const values = [1, 5, 10, '12', 'x', null].map((amount) => ev('$pageview', '2024-01-01T12:00:00', 'u1', amount === null ? {} : { amount }))
  const amount = (operator: string, value: unknown) => count([{ type: 'event', key: 'amount', operator, value }], values)
  t.equal(await amount('gt', 5), 2)
  t.equal(await amount('gte', '5'), 3)
  t.equal(await amount('lt', 5), 1)
  t.equal(await amount('min', 10), 2)
  t.equal(await amount('max', 5), 2)
  t.equal(await amount('between', [5, 10]), 2)
  t.equal(await amount('not_between', [5, 10]), 2, 'not_between is false for a missing or non-numeric value')
  t.equal(await amount('not_icontains', '1'), 3, 'not_icontains matches a missing value')
  t.equal(await amount('not_regex', '^1'), 3, 'not_regex matches a missing value')
  t.equal(await amount('is_not', ['1', '5']), 4, 'is_not with a list is none of')
  t.equal(await amount('exact', []), 6, 'an empty list matches everything')
})

t.test('dates compare as dates', async (t) => {
  const events = ['2024-01-01', '2023-06-01T10:00:00Z', 'not a date'].map((seen) => ev('$pageview', '2024-01-01T12:00:00', 'u1', { seen }))
  t.equal(await count([{ type: 'event', key: 'seen', operator: 'is_date_before', value: '2023-12-01' }], events), 1)
  t.equal(await count([{ type: 'event', key: 'seen', operator: 'is_date_after', value: '2023-12-01' }], events), 1)
})

t.test('person, group and test-account filters read their own properties', async (t) => {
  const events = [
    ev('$pageview', '2024-01-01T12:00:00', 'u1', { $groups: { company: 'acme' } }, { personProperties: { email: 'a@test.com' } }),
    ev('$pageview', '2024-01-01T12:00:00', 'u2', { $group_0: 'zeta' }, { personProperties: { email: 'b@real.com' } }),
  ]
  const groups = new Map([[0, new Map([['acme', { properties: { size: 10 }, createdAt: 0 }], ['zeta', { properties: { size: 2 }, createdAt: 0 }]])]])
  const environment = { groupTypes: [{ group_type: 'company', group_type_index: 0 }], testAccountFilters: [{ type: 'person', key: 'email', operator: 'not_icontains', value: '@test.com' }] } as const
  const query = (extra: Record<string, unknown>) => parseQueryNode({
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '2024-01-01', date_to: '2024-01-01' }, ...extra,
  })
  const input = at('2024-02-01T00:00:00Z', environment as never)
  const countOf = async (extra: Record<string, unknown>) => ((await runQuery(query(extra), input, memorySource(events, groups))).results as { count: number }[])[0]!.count
  t.equal(await countOf({ properties: [{ type: 'person', key: 'email', operator: 'icontains', value: 'real' }] }), 1)
  t.equal(await countOf({ properties: [{ type: 'group', key: 'size', operator: 'gt', value: 5, group_type_index: 0 }] }), 1)
  t.equal(await countOf({ filterTestAccounts: true }), 1)
})

t.test('filters the engine cannot run are refused with a 400 naming them', async (t) => {
  await t.rejects(count([{ type: 'cohort', key: 'id', value: 3 }]), QueryRefused)
  await t.rejects(count([{ type: 'hogql', key: 'properties.plan = 1' }]), /HogQL/)
  await t.rejects(count(plan('between', [10, 5])), /at most/)
  await t.rejects(count(plan('regex', '(?<=x)')), /regular expression/)
})
