import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runQuery } from '../../src/insights/engine/run-query.js'
import { QueryRefused } from '../../src/insights/errors.js'
import type { ActorsResponse } from '../../src/insights/actors/run-actors.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at, ev } from './support/events.js'
import { TV1_EVENTS, TV4_EVENTS, TV5_EVENTS, TV6_EVENTS, TV7_EVENTS } from './support/vectors.js'
import type { QueryEvent, QueryGroup, QueryPerson, QuerySource } from '../../src/insights/engine/data.js'

const NOW = at('2024-02-15T00:00:00Z')
const actors = async (query: Record<string, unknown>, source: QuerySource) =>
  (await runQuery(parseQueryNode({ kind: 'ActorsQuery', ...query }), NOW, source)) as ActorsResponse
const ids = (response: ActorsResponse, column = 1) => response.results.map((row) => row[column]).sort()
const pageview = { kind: 'EventsNode', event: '$pageview' }

const TV1 = memorySource(TV1_EVENTS)
const tv1 = { kind: 'TrendsQuery', series: [pageview], dateRange: { date_from: '2024-01-01', date_to: '2024-01-07' } }

t.test('TV1: the actors of a trends day are those with an event that day', async (t) => {
  const response = await actors({ source: { kind: 'InsightActorsQuery', source: tv1, day: '2024-01-01', series: 0 } }, TV1)
  t.same(response.columns, ['person', 'id', 'person.$delete', 'event_distinct_ids'])
  t.same(ids(response), ['u1', 'u2'])
  t.same(response.results[0]![0], { id: 'u1', properties: {}, is_identified: false, created_at: '2020-01-01T00:00:00Z', distinct_ids: ['u1'] })
  t.same(response.results[0]!.slice(2), [1, ['u1']])
  const counted = await actors({ select: ['actor', 'event_count'], orderBy: ['event_count DESC'], source: { kind: 'InsightActorsQuery', source: tv1, day: '2024-01-01' } }, TV1)
  t.same(counted.results.map((row) => [(row[0] as { id: string }).id, row[1]]), [['u1', 2], ['u2', 1]])
})

t.test('TV1: a BoldNumber dau has the actors of the whole range', async (t) => {
  const bold = { ...tv1, series: [{ ...pageview, math: 'dau' }], trendsFilter: { display: 'BoldNumber' } }
  t.same(ids(await actors({ source: { kind: 'InsightActorsQuery', source: bold } }, TV1)), ['u1', 'u2', 'u3'])
})

t.test('TV3a: the actors of Other are those whose value was merged', async (t) => {
  const source = memorySource(['Chrome', 'Chrome', 'Chrome', 'Firefox', 'Firefox', 'Safari', 'Edge'].map((browser, i) => ev('$pageview', '2024-01-01T12:00:00', `u${i}`, { $browser: browser })))
  const trends = { kind: 'TrendsQuery', series: [pageview], dateRange: { date_from: '2024-01-01', date_to: '2024-01-01' }, breakdownFilter: { breakdown: '$browser', breakdown_limit: 2 } }
  const point = (breakdown: string) => actors({ source: { kind: 'InsightActorsQuery', source: trends, day: '2024-01-01', breakdown } }, source)
  t.same(ids(await point('$$_posthog_breakdown_other_$$')), ['u5', 'u6'])
  t.same(ids(await point('Firefox')), ['u3', 'u4'])
})

const TV4 = memorySource(TV4_EVENTS)
const funnel = {
  kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }],
  dateRange: { date_from: '2024-01-01', date_to: '2024-01-31' },
}

t.test('TV4: the actors of a funnel step, converted or dropped off', async (t) => {
  const step = (funnelStep: number) => actors({ source: { kind: 'FunnelsActorsQuery', source: funnel, funnelStep } }, TV4)
  t.same(ids(await step(2)), ['p1', 'p4', 'p5'])
  t.same(ids(await step(-2)), ['p2', 'p3'])
  t.same(ids(await step(1)), ['p1', 'p2', 'p3', 'p4', 'p5'])
  const error = await step(-1).then(() => null, (e: unknown) => e)
  t.ok(error instanceof QueryRefused)
  t.match((error as Error).message, /first valid drop-off argument for funnelStep is -2/)
})

const TV5 = memorySource(TV5_EVENTS)

t.test('TV5: the actors of a retention cohort, with the days they came back', async (t) => {
  const retention = { kind: 'RetentionQuery', retentionFilter: { period: 'Day', totalIntervals: 3 }, dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' } }
  const response = await actors({ select: ['id', 'appearances'], source: { kind: 'InsightActorsQuery', source: retention, interval: 0 } }, TV5)
  t.same(response.results, [['u1', [0, 1, 2]], ['u2', [0, 2]]])
})

const TV6 = memorySource(TV6_EVENTS)

t.test('TV6: the actors of a lifecycle status on a day', async (t) => {
  const lifecycle = { kind: 'LifecycleQuery', series: [pageview], dateRange: { date_from: '2024-01-02', date_to: '2024-01-05' } }
  const point = (day: string, status: string) => actors({ select: ['id'], source: { kind: 'InsightActorsQuery', source: lifecycle, day, status } }, TV6)
  t.same(ids(await point('2024-01-03', 'dormant'), 0), ['p2'])
  t.same(ids(await point('2024-01-02', 'returning'), 0), ['p2'])
  t.same(ids(await point('2024-01-02', 'new'), 0), ['p1'])
  t.same(ids(await point('2024-01-05', 'resurrecting'), 0), ['p1'])
})

const TV7 = memorySource(TV7_EVENTS)

t.test('TV7: the actors active a number of days', async (t) => {
  const stickiness = { kind: 'StickinessQuery', series: [pageview], dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' } }
  const point = (day: number, extra = {}) => actors({ select: ['id'], source: { kind: 'InsightActorsQuery', source: { ...stickiness, ...extra }, day } }, TV7)
  t.same(ids(await point(1), 0), ['u2', 'u4'])
  t.same(ids(await point(2, { stickinessFilter: { computedAs: 'cumulative' } }), 0), ['u1', 'u3'])
})

t.test('actors are paginated, filtered by person properties and searched', async (t) => {
  const persons = new Map<string, QueryPerson>(['a', 'b', 'c'].map((id, i) => [id, { id, distinctIds: [`${id}-device`], properties: { email: `${id}@x.test`, plan: i === 0 ? 'pro' : 'free' }, createdAt: Date.parse(`2023-0${i + 1}-01T00:00:00Z`), isIdentified: true }]))
  const source = memorySource(['a', 'b', 'c', 'gone'].map((id) => ev('$pageview', '2024-01-01T12:00:00', id)), new Map(), persons)
  const point = { kind: 'InsightActorsQuery', source: { ...tv1, dateRange: { date_from: '2024-01-01', date_to: '2024-01-01' } }, day: '2024-01-01' }
  const first = await actors({ select: ['id'], source: point, limit: 3 }, source)
  t.same(first.results, [['a'], ['b'], ['c']])
  t.equal(first.hasMore, true)
  const rest = await actors({ select: ['person'], source: point, limit: 3, offset: 3 }, source)
  t.same(rest.results, [[{ id: 'gone' }]])
  t.equal(rest.missing_actors_count, 1)
  t.equal(rest.hasMore, false)
  const pro = await actors({ select: ['id'], source: point, properties: [{ type: 'person', key: 'plan', value: 'pro' }] }, source)
  t.same(pro.results, [['a']])
  t.same((await actors({ select: ['id'], source: point, search: 'B-DEV' }, source)).results, [['b']])
  const newest = await actors({ select: ['id', 'created_at'], source: point }, source)
  t.same(newest.results.slice(0, 2), [['c', '2023-03-01T00:00:00Z'], ['b', '2023-02-01T00:00:00Z']], 'created_at orders newest first by default')
})

t.test('group actors come with their group', async (t) => {
  const groups = new Map<number, Map<string, QueryGroup>>([[0, new Map([['acme', { properties: { name: 'Acme' }, createdAt: Date.parse('2023-01-01T00:00:00Z') }]])]])
  const events: QueryEvent[] = [ev('$pageview', '2024-01-01T12:00:00', 'u1', { $group_0: 'acme' }), ev('$pageview', '2024-01-01T13:00:00', 'u2', { $group_0: 'acme' })]
  const trends = { ...tv1, aggregation_group_type_index: 0 }
  const response = await actors({ source: { kind: 'InsightActorsQuery', source: trends, day: '2024-01-01' } }, memorySource(events, groups))
  t.same(response.columns, ['group'])
  t.same(response.results, [[{ id: 'acme', type: 'group', properties: { name: 'Acme' }, group_key: 'acme', group_type_index: 0, created_at: '2023-01-01T00:00:00Z', group_properties: { name: 'Acme' } }]])
})

t.test('what the actors query cannot answer is refused with a 400', async (t) => {
  for (const [query, message] of [
    [{ source: { kind: 'HogQLQuery', query: 'select 1' } }, /HogQL/],
    [{ select: ['toString(id)'], source: { kind: 'InsightActorsQuery', source: tv1, day: '2024-01-01' } }, /cannot select "toString\(id\)"/],
    [{ select: ['appearances'], source: { kind: 'InsightActorsQuery', source: tv1, day: '2024-01-01' } }, /appearances is not known/],
    [{ source: { kind: 'InsightActorsQuery', source: funnel } }, /FunnelsActorsQuery/],
    [{}, /needs a source/],
  ] as const) {
    const error = await actors(query, TV1).then(() => null, (e: unknown) => e)
    t.ok(error instanceof QueryRefused, JSON.stringify(query))
    t.match((error as Error).message, message)
  }
})
