import fc from 'fast-check'
import t from 'tap'
import type { QueryEnvironment, QueryEvent } from '../../src/insights/engine/data.js'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { LiveStickiness } from '../../src/insights/live/live-stickiness.js'
import { liveQueryOf } from '../../src/insights/live/live-kinds.js'
import type { LiveQuery } from '../../src/insights/live/live-query.js'
import type { StickinessQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { runStickiness, type StickinessResponse } from '../../src/insights/stickiness/run-stickiness.js'
import { agreeOnRandomInputs } from './support/agree.js'
import { creations, DAY, END, RELATIVE_DAYS, RELATIVE_HOURS, replay, START, step, type History, type Tally } from './support/live-histories.js'
import { randomQuery } from './support/random-insights.js'

const criteria = fc.option(fc.record({ operator: fc.constantFrom('gte', 'lte', 'exact'), value: fc.integer({ min: 1, max: 3 }) }), { nil: undefined })

/**
 * A generated query as a stickiness query: its series (counting persons), filters, compare and
 * range, a relative range in most runs; intervals of one to three buckets, any criteria.
 */
const liveQuery = fc.tuple(randomQuery, fc.nat(20), fc.integer({ min: 1, max: 3 }), fc.boolean(), criteria).map(([q, pick, intervalCount, cumulative, stickinessCriteria]) => {
  const relative = q.interval === 'hour' ? RELATIVE_HOURS : RELATIVE_DAYS
  const dateRange = pick < relative.length * 2 ? relative[pick % relative.length] : { date_from: q.dateFrom, date_to: q.dateTo }
  const node = {
    kind: 'StickinessQuery', interval: q.interval, dateRange, properties: q.properties, intervalCount,
    series: q.series.map((s) => ({ kind: 'EventsNode', event: s.event, properties: s.properties, math: s.math === 'unique_group' ? 'dau' : s.math })),
    ...(q.compare ? { compareFilter: { compare: true } } : {}),
    stickinessFilter: { computedAs: cumulative ? 'cumulative' : 'non_cumulative', ...(stickinessCriteria ? { stickinessCriteria } : {}) },
  }
  const environment: QueryEnvironment = { timezone: q.timezone, weekStartDay: q.weekStartDay, testAccountFilters: [], groupTypes: [] }
  return { query: parseQueryNode(node) as StickinessQuery, environment }
})

const tally: Tally = { compared: 0, unanswered: 0 }

const engine = (environment: QueryEnvironment) => (query: StickinessQuery, now: number, events: QueryEvent[]) =>
  runStickiness(query, { environment, now }, memorySource(events))

t.test('a live stickiness query answers as the engine does after every event, merge and tick of the clock of random histories', async (t) => {
  const histories: fc.Arbitrary<History<StickinessQuery>> = fc.record({
    query: liveQuery, created: creations, steps: fc.array(step, { minLength: 1, maxLength: 24 }),
    clock: fc.array(fc.integer({ min: 0, max: 12 * DAY }), { minLength: 1, maxLength: 6 }),
    built: fc.integer({ min: 0, max: 40 }),
  }).map(({ query: { query, environment }, ...rest }) => ({ query, environment, ...rest }))
  await agreeOnRandomInputs(t, histories, (history) => replay(history, liveQueryOf(history.query, history.environment, END - 5 * DAY - (history.built ?? 0) * DAY) as LiveQuery<StickinessResponse>, engine(history.environment), tally), { runs: 250, seed: 20261129 })
  t.equal(tally.unanswered, 0, `${tally.compared} live answers compared; none left to the engine`)
})

const at = (text: string) => Date.parse(text)
const event = (uuid: string, person: string, timestamp: number): QueryEvent =>
  ({ uuid, event: '$pageview', timestamp, distinctId: person, personId: person, personCreatedAt: timestamp, properties: {}, personProperties: {} })

t.test('a live stickiness moves with the clock at midnight, and a merge adds two persons\' days up', async (t) => {
  const environment: QueryEnvironment = { timezone: 'Europe/Paris', weekStartDay: 1, testAccountFilters: [], groupTypes: [] }
  const node = parseQueryNode({ kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-2d' } }) as StickinessQuery
  const live = new LiveStickiness(node, environment, START)
  // a: active on the 3rd and the 5th; b: on the 4th.
  live.add(event('u1', 'a', at('2024-03-03T10:00:00Z')))
  live.add(event('u2', 'a', at('2024-03-05T10:00:00Z')))
  live.add(event('u3', 'b', at('2024-03-04T11:00:00Z')))
  const evening = at('2024-03-05T22:59:00Z')
  const night = at('2024-03-05T23:01:00Z')
  t.same(live.answer(evening).results[0]!.data, [1, 1, 0], 'before midnight in Paris: b one day, a two')
  t.same(live.answer(night).results[0]!.data, [2, 0, 0], 'after midnight, with no event in between: the 3rd is out of the range')
  live.merge('b', 'a')
  t.same(live.answer(night).results[0]!.data, [0, 1, 0], 'one person, active on the 4th and the 5th')
  t.same(live.answer(evening).results[0]!.data, [0, 0, 1], 'and, asked before midnight, on the three days')
})

t.test('stickiness queries that read what an event does not fix are refused', async (t) => {
  const environment: QueryEnvironment = { timezone: 'UTC', weekStartDay: 0, testAccountFilters: [], groupTypes: [] }
  const series = [{ kind: 'EventsNode', event: 'x' }]
  const refused = [
    { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: 'x', math: 'unique_group', math_group_type_index: 0 }] },
    { kind: 'StickinessQuery', series, aggregation_group_type_index: 0 },
    { kind: 'StickinessQuery', series, interval: 'minute', dateRange: { date_from: '-1h' } },
    { kind: 'StickinessQuery', series, properties: [{ type: 'session', key: '$session_duration', operator: 'gt', value: 10 }] },
    { kind: 'StickinessQuery', series, properties: [{ type: 'event', key: 'd', operator: 'is_date_before', value: '-7d' }] },
    { kind: 'StickinessQuery', series, properties: [{ type: 'person', key: 'tier', operator: 'exact', value: 'gold' }], modifiers: { personsOnEventsMode: 'person_id_no_override_properties_joined' } },
  ]
  for (const node of refused) t.throws(() => new LiveStickiness(parseQueryNode(node) as StickinessQuery, environment, START), /cannot be answered live/, JSON.stringify(node))
  t.doesNotThrow(() => new LiveStickiness(parseQueryNode({ kind: 'StickinessQuery', series, dateRange: { date_from: '-30d' } }) as StickinessQuery, environment, START))
})
