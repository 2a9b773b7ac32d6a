import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runEventsQuery } from '../../src/insights/events-query/run-events-query.js'
import { QueryRefused } from '../../src/insights/errors.js'
import type { EventsQuery } from '../../src/insights/schema/other-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at, ev } from './support/events.js'
import type { QueryEvent, QueryPerson } from '../../src/insights/engine/data.js'

const NOW = at('2024-01-02T12:00:00Z', { teamId: 7 })
const events: QueryEvent[] = [
  ev('$pageview', '2024-01-02T09:00:00', 'u1', { $browser: 'Chrome', $current_url: 'https://a.test/x', $lib: 'web' }, { personProperties: { email: 'u1@a.test' } }),
  ev('$pageview', '2024-01-02T10:00:00', 'u2', { $browser: 'Firefox', $screen_name: 'Home', $lib: 'ios' }),
  ev('signup', '2024-01-02T11:00:00', 'u1', { $browser: 'Chrome', plan: 5 }, { personProperties: { email: 'u1@a.test' }, elementsChain: 'button.cta:text="Go"nth-child="1"nth-of-type="1"' }),
  ev('$pageview', '2024-01-01T11:00:00', 'u3', { $browser: 'Chrome' }),
  ev('$pageview', '2024-01-02T11:59:58', 'u3', { $browser: 'Safari' }),
]
const persons = new Map<string, QueryPerson>([['u1', { id: 'u1', distinctIds: ['u1'], properties: { email: 'u1@a.test' }, createdAt: Date.parse('2023-06-01T00:00:00Z'), isIdentified: true }]])
const run = (query: Record<string, unknown>, input = NOW) =>
  runEventsQuery(parseQueryNode({ kind: 'EventsQuery', ...query }) as EventsQuery, input, memorySource(events, new Map(), persons))

const TABLE = ['*', 'event', 'person_display_name -- Person', 'coalesce(properties.$current_url, properties.$screen_name) -- Url / Screen', 'properties.$lib', 'timestamp']

t.test("PostHog's events table columns: the last 24 hours, newest first", async (t) => {
  const response = await run({ select: TABLE, orderBy: ['timestamp DESC'] })
  t.same(response.columns, TABLE)
  t.equal(response.results.length, 4, 'the event of the day before is older than 24 hours')
  t.same(response.results.map((row) => row[1]), ['$pageview', 'signup', '$pageview', '$pageview'])
  const [, signup] = response.results
  t.same(signup![2], { display_name: 'u1@a.test', id: 'u1', distinct_id: 'u1' })
  t.equal(response.results[3]![3], 'https://a.test/x')
  t.equal(response.results[2]![3], 'Home')
  t.equal(response.results[2]![4], 'ios')
  t.equal(response.results[0]![5], '2024-01-02T11:59:58Z')
  t.same({ hasMore: response.hasMore, limit: response.limit, offset: response.offset }, { hasMore: false, limit: 100, offset: 0 })
})

t.test('the * column is the event object PostHog returns', async (t) => {
  const { results } = await run({ select: ['*'], event: 'signup' })
  const star = results[0]![0] as Record<string, unknown>
  t.same(Object.keys(star), ['uuid', 'event', 'properties', 'timestamp', 'team_id', 'distinct_id', 'elements_chain', 'created_at', 'person_mode', 'elements'])
  t.match(star, { event: 'signup', team_id: 7, distinct_id: 'u1', timestamp: '2024-01-02T11:00:00Z', person_mode: 'full', properties: { plan: 5 } })
  t.match((star['elements'] as unknown[])[0], { tag_name: 'button', text: 'Go' })
})

t.test('the person column is the person now, or only the distinct id', async (t) => {
  const { results } = await run({ select: ['person', 'event'], orderBy: ['timestamp ASC'], after: 'all' })
  t.same(results[1]![0], { uuid: 'u1', created_at: '2023-06-01T00:00:00Z', properties: { email: 'u1@a.test' }, distinct_id: 'u1' })
  t.same(results[0]![0], { distinct_id: 'u3' })
})

t.test('where conditions compare fields, properties and times', async (t) => {
  const events = async (where: string[]) => (await run({ select: ['uuid', 'event', 'properties.$browser'], where, after: 'all' })).results.length
  t.equal(await events(["timestamp > '2024-01-02 10:00:00'"]), 2)
  t.equal(await events(["event = 'signup'"]), 1)
  t.equal(await events(["properties.$browser = 'Chrome'"]), 3)
  t.equal(await events(["properties.$browser != 'Chrome' and properties.$browser ilike 's%'"]), 1)
  t.equal(await events(["properties.$browser in ('Safari', 'Firefox')"]), 2)
  t.equal(await events(['properties.plan > 4']), 1)
  t.equal(await events(['properties.plan is null']), 4)
  t.equal(await events(["properties.missing = 'x' or event = 'signup'"]), 1, 'null OR true is true')
  t.equal(await events(["not (properties.missing = 'x')"]), 0, 'NOT null is null')
})

t.test('count() groups by the other columns and orders by the count', async (t) => {
  const response = await run({ select: ['event', 'count()'], after: 'all' })
  t.same(response.results, [['$pageview', 4], ['signup', 1]])
  const having = await run({ select: ['properties.$browser', 'count()'], where: ['count() > 1'], after: 'all' })
  t.same(having.results, [['Chrome', 3]])
  const total = await run({ select: ['count()'], event: 'nothing' })
  t.same(total.results, [[0]], 'a count without grouping columns is one row, even of no events')
})

t.test('limit and offset page through the rows; hasMore says another follows', async (t) => {
  const first = await run({ select: ['uuid', 'timestamp'], after: 'all', limit: 2 })
  t.equal(first.results.length, 2)
  t.equal(first.hasMore, true)
  const last = await run({ select: ['uuid', 'timestamp'], after: 'all', limit: 2, offset: 4 })
  t.equal(last.results.length, 1)
  t.equal(last.hasMore, false)
  t.equal(last.offset, 4)
})

t.test('filters: event names, properties, fixed properties, HogQL property filters, person and bounds', async (t) => {
  const count = async (query: Record<string, unknown>) => (await run({ select: ['uuid'], after: 'all', ...query })).results.length
  t.equal(await count({ events: ['signup', '$pageview'] }), 5)
  t.equal(await count({ properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }] }), 3)
  t.equal(await count({ fixedProperties: [{ type: 'person', key: 'email', operator: 'is_set' }] }), 2)
  t.equal(await count({ properties: [{ type: 'hogql', key: "event = 'signup'" }] }), 1)
  t.equal(await count({ personId: 'u3' }), 2)
  t.equal(await count({ after: '2024-01-02T10:00:00Z', before: '2024-01-02T11:00:00Z' }), 0, 'both bounds are exclusive')
  t.equal(await count({ after: '-2h' }), 2)
  t.equal(await count({ after: undefined }), 4)
})

t.test('an expression Hedgelog does not parse is refused with a 400 naming it', async (t) => {
  for (const [query, named] of [
    [{ select: ['toStartOfDay(timestamp)'] }, 'toStartOfDay(timestamp)'],
    [{ select: ['event'], where: ['timestamp > now() - interval 1 day'] }, 'timestamp > now() - interval 1 day'],
    [{ select: ['session.$session_duration'] }, 'session.$session_duration'],
    [{ select: ['event'], orderBy: ['1 + 1'] }, '1 + 1'],
  ] as const) {
    const error = await run(query).then(() => null, (e: unknown) => e)
    t.ok(error instanceof QueryRefused, JSON.stringify(query))
    t.equal((error as QueryRefused).status, 400)
    t.match((error as QueryRefused).message, named)
  }
})
