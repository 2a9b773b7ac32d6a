import fc from 'fast-check'
import t from 'tap'
import type { QueryEnvironment, QueryEvent } from '../../src/insights/engine/data.js'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { LiveLifecycle } from '../../src/insights/live/live-lifecycle.js'
import { runLifecycle } from '../../src/insights/lifecycle/run-lifecycle.js'
import type { LifecycleQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { agreeOnRandomInputs } from './support/agree.js'
import { creations, DAY, RELATIVE_DAYS, RELATIVE_HOURS, replay, START, step, type History, type Tally } from './support/live-histories.js'
import { randomQuery } from './support/random-insights.js'

/** A generated query as a lifecycle query: its first series, filters and range; a relative range in most runs. */
const liveQuery = fc.tuple(randomQuery, fc.nat(20)).map(([q, pick]) => {
  const relative = q.interval === 'hour' ? RELATIVE_HOURS : RELATIVE_DAYS
  const dateRange = pick < relative.length * 2 ? relative[pick % relative.length] : { date_from: q.dateFrom, date_to: q.dateTo }
  const node = {
    kind: 'LifecycleQuery', interval: q.interval, dateRange, properties: q.properties,
    series: [{ kind: 'EventsNode', event: q.series[0]!.event, properties: q.series[0]!.properties }],
  }
  const environment: QueryEnvironment = { timezone: q.timezone, weekStartDay: q.weekStartDay, testAccountFilters: [], groupTypes: [] }
  return { query: parseQueryNode(node) as LifecycleQuery, environment }
})

const tally: Tally = { compared: 0, unanswered: 0 }

const engine = (environment: QueryEnvironment) => (query: LifecycleQuery, now: number, events: QueryEvent[]) =>
  runLifecycle(query, { environment, now }, memorySource(events))

t.test('a live lifecycle query answers as the engine does after every event, merge and tick of the clock of random histories', async (t) => {
  const histories: fc.Arbitrary<History<LifecycleQuery>> = fc.record({
    query: liveQuery, created: creations, steps: fc.array(step, { minLength: 1, maxLength: 24 }),
    clock: fc.array(fc.integer({ min: 0, max: 12 * DAY }), { minLength: 1, maxLength: 6 }),
  }).map(({ query: { query, environment }, ...rest }) => ({ query, environment, ...rest }))
  await agreeOnRandomInputs(t, histories, (history) => replay(history, new LiveLifecycle(history.query, history.environment, START), engine(history.environment), tally), { runs: 250, seed: 20261128 })
  t.equal(tally.unanswered, 0, `${tally.compared} live answers compared; none left to the engine`)
})

const at = (text: string) => Date.parse(text)
const event = (uuid: string, person: string, timestamp: number, personCreatedAt: number): QueryEvent =>
  ({ uuid, event: '$pageview', timestamp, distinctId: person, personId: person, personCreatedAt, properties: {}, personProperties: {} })
const byStatus = (live: LiveLifecycle, now: number) => Object.fromEntries(live.answer(now).results.map((series) => [series.status, series.data]))

t.test('a live lifecycle moves with the clock at midnight, and a merge makes one person of two, created at the earlier creation', async (t) => {
  const environment: QueryEnvironment = { timezone: 'Europe/Paris', weekStartDay: 1, testAccountFilters: [], groupTypes: [] }
  const node = parseQueryNode({ kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-2d' } }) as LifecycleQuery
  const live = new LiveLifecycle(node, environment, START)
  // a: created and active on the 4th and 5th; b: created long before, active on the 5th only.
  live.add(event('u1', 'a', at('2024-03-04T10:00:00Z'), at('2024-03-04T09:00:00Z')))
  live.add(event('u2', 'a', at('2024-03-05T10:00:00Z'), at('2024-03-04T09:00:00Z')))
  live.add(event('u3', 'b', at('2024-03-05T11:00:00Z'), at('2024-01-01T00:00:00Z')))
  const evening = at('2024-03-05T22:59:00Z')
  const night = at('2024-03-05T23:01:00Z')
  t.same(live.answer(evening).results[0]!.days, ['2024-03-03', '2024-03-04', '2024-03-05'], 'before midnight in Paris')
  t.same(byStatus(live, evening), { new: [0, 1, 0], returning: [0, 0, 1], resurrecting: [0, 0, 1], dormant: [0, 0, 0] })
  t.same(live.answer(night).results[0]!.days, ['2024-03-04', '2024-03-05', '2024-03-06'], 'after midnight, with no event in between')
  t.same(byStatus(live, night), { new: [1, 0, 0], returning: [0, 1, 0], resurrecting: [0, 1, 0], dormant: [0, 0, -2] }, 'both are dormant on the new day')
  live.merge('a', 'b')
  t.same(byStatus(live, night), { new: [0, 0, 0], returning: [0, 1, 0], resurrecting: [1, 0, 0], dormant: [0, 0, -1] },
    'one person, created in January: active on the 4th after a gap, returning on the 5th')
})

t.test('lifecycle queries that read what an event does not fix are refused', async (t) => {
  const environment: QueryEnvironment = { timezone: 'UTC', weekStartDay: 0, testAccountFilters: [], groupTypes: [] }
  const series = [{ kind: 'EventsNode', event: 'x' }]
  const refused = [
    { kind: 'LifecycleQuery', series, aggregation_group_type_index: 0 },
    { kind: 'LifecycleQuery', series, interval: 'minute', dateRange: { date_from: '-1h' } },
    { kind: 'LifecycleQuery', series, properties: [{ type: 'session', key: '$session_duration', operator: 'gt', value: 10 }] },
    { kind: 'LifecycleQuery', series, properties: [{ type: 'group', group_type_index: 0, key: 'plan', operator: 'exact', value: 'pro' }] },
    { kind: 'LifecycleQuery', series, properties: [{ type: 'event', key: 'd', operator: 'is_date_after', value: '-7d' }] },
    { kind: 'LifecycleQuery', series, properties: [{ type: 'person', key: 'tier', operator: 'exact', value: 'gold' }], modifiers: { personsOnEventsMode: 'person_id_override_properties_joined' } },
  ]
  for (const node of refused) t.throws(() => new LiveLifecycle(parseQueryNode(node) as LifecycleQuery, environment, START), /cannot be answered live/, JSON.stringify(node))
  t.doesNotThrow(() => new LiveLifecycle(parseQueryNode({ kind: 'LifecycleQuery', series, dateRange: { date_from: '-30d' } }) as LifecycleQuery, environment, START))
})
