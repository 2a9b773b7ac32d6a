import fc from 'fast-check'
import t from 'tap'
import type { JsonObject } from '../../src/eventlog/port.js'
import type { QueryEnvironment, QueryEvent } from '../../src/insights/engine/data.js'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import type { LiveQuery } from '../../src/insights/live/live-query.js'
import { LiveTrends } from '../../src/insights/live/live-trends.js'
import { liveQueryOf } from '../../src/insights/live/live-kinds.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import type { TrendsQuery } from '../../src/insights/schema/insight-queries.js'
import { runTrends, type TrendsResponse } from '../../src/insights/trends/run-trends.js'
import { agreeOnRandomInputs } from './support/agree.js'
import { randomQuery, trendsNode } from './support/random-insights.js'

const DAY = 86_400_000
const START = Date.parse('2024-02-20T00:00:00Z')
const END = Date.parse('2024-04-12T00:00:00Z')

/** A step of a history: an event of one of four persons' distinct ids, a merge of two persons, or time passing. */
type Step =
  | { readonly kind: 'event'; readonly person: number; readonly id: number; readonly event: string; readonly at: number; readonly properties: JsonObject }
  | { readonly kind: 'merge'; readonly from: number; readonly into: number }

const properties = fc.record({
  plan: fc.constantFrom<unknown>('pro', 'free', 5, null, undefined),
  amount: fc.constantFrom<unknown>(1, 2.5, 10, '7', 'x', undefined),
  $browser: fc.constantFrom<unknown>('Chrome', 'Firefox', 'Safari', '', undefined),
  $session_id: fc.constantFrom<unknown>('s1', 's2', 's3', undefined),
}).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as JsonObject)

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('event' as const), person: fc.integer({ min: 0, max: 3 }), id: fc.integer({ min: 0, max: 1 }), event: fc.constantFrom('$pageview', 'signup'), at: fc.integer({ min: START, max: END + 3 * DAY }), properties }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('merge' as const), from: fc.integer({ min: 0, max: 3 }), into: fc.integer({ min: 0, max: 3 }) }) },
)

/** Ranges a saved insight keeps: relative ones that move with the clock, and the generator's fixed days. */
const RELATIVE_DAYS = [{ date_from: '-7d' }, { date_from: '-14d' }, { date_from: '-30d' }, { date_from: '-90d' }, { date_from: 'all' }, { date_from: '-2w', date_to: '-1w' }, { date_from: 'mStart' }]
const RELATIVE_HOURS = [{ date_from: '-24h' }, { date_from: '-48h' }]

const liveQuery = fc.tuple(randomQuery, fc.nat(20)).map(([q, pick]) => {
  // Groups are counted by the engine alone: their properties change without an event of the query.
  const series = q.series.map((s) => (s.math === 'unique_group' ? { ...s, math: 'dau' } : s))
  const node = trendsNode({ ...q, series }) as { dateRange: unknown; interval: string }
  const relative = q.interval === 'hour' ? RELATIVE_HOURS : RELATIVE_DAYS
  if (pick < relative.length * 2) node.dateRange = relative[pick % relative.length]
  return { timezone: q.timezone, weekStartDay: q.weekStartDay, node: parseQueryNode(node) as TrendsQuery }
})

const round = (value: unknown): unknown => {
  if (typeof value === 'number') return Math.round(value * 1e9) / 1e9
  if (Array.isArray(value)) return value.map(round)
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, round(inner)]))
  return value
}

/** Live answers compared with the engine's, and moments without a live answer, over a whole run. */
const tally = { compared: 0, unanswered: 0 }

const comparable = (response: TrendsResponse | null) => (response === null ? null : round(response))

/**
 * Replays a history into a live query and asks it, after every step, at a moment after the step:
 * each answer beside the engine's over the same events, every event with its person as the
 * merges so far made it. Relative ranges must always have a live answer.
 */
const replay = async ([{ timezone, weekStartDay, node }, steps, clock, built]: [{ timezone: string; weekStartDay: 0 | 1; node: TrendsQuery }, Step[], number[], number]) => {
  const environment: QueryEnvironment = { timezone, weekStartDay, testAccountFilters: [], groupTypes: [] }
  // Built some days before it is first asked, so that old and late events reach a range that has moved on.
  const live = liveQueryOf(node, environment, END - 5 * DAY - built * DAY) as LiveQuery<TrendsResponse>
  const owner = [0, 1, 2, 3]
  const personOf = (person: number): string => `p${owner[person]}`
  const added: Array<{ event: QueryEvent; person: number }> = []
  const live_: unknown[] = []
  const engine: unknown[] = []
  for (const [index, one] of steps.entries()) {
    if (one.kind === 'merge') {
      const [from, into] = [owner[one.from]!, owner[one.into]!]
      if (from !== into) {
        live.merge(`p${from}`, `p${into}`)
        for (let person = 0; person < owner.length; person++) if (owner[person] === from) owner[person] = into
      }
    } else {
      const event: QueryEvent = {
        uuid: `e${String(index).padStart(3, '0')}`, event: one.event, timestamp: one.at, distinctId: `d${one.person}-${one.id}`,
        personId: personOf(one.person), personCreatedAt: START - DAY, properties: one.properties, personProperties: one.person % 2 === 0 ? { tier: 'gold' } : {},
      }
      added.push({ event, person: one.person })
      live.add(event)
    }
    const now = END - 5 * DAY + (clock[index % clock.length] ?? 0)
    const answer = live.answer(now)
    // The period before "all time" ends at the first event's instant, which may cut its day: left to the engine.
    const from = String(node.dateRange?.date_from ?? '')
    const relative = !/^\d{4}-/.test(from) && !(from === 'all' && node.compareFilter?.compare === true)
    if (answer === null && relative) {
      live_.push('no live answer for a relative range')
      engine.push('an answer')
      break
    }
    if (answer === null) {
      tally.unanswered++
      continue
    }
    tally.compared++
    const events = added.map(({ event, person }) => ({ ...event, personId: personOf(person) }))
      .sort((a, b) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0))
    live_.push(comparable(answer))
    engine.push(comparable(await runTrends(node, { environment, now }, memorySource(events))))
  }
  return [live_, engine] as const
}

t.test('a live trends query answers as the engine does after every event, merge and tick of the clock of random histories', async (t) => {
  const history = fc.tuple(liveQuery, fc.array(step, { minLength: 1, maxLength: 24 }), fc.array(fc.integer({ min: 0, max: 12 * DAY }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 40 }))
  await agreeOnRandomInputs(t, history, replay, { runs: 250, seed: 20261127 })
  t.ok(tally.compared > 20 * tally.unanswered, `${tally.compared} live answers compared; ${tally.unanswered} moments left to the engine (explicit ranges cutting an hour or day)`)
})

t.test('a live query moves with the clock: the days of a relative range change at midnight without any event', async (t) => {
  const environment: QueryEnvironment = { timezone: 'Europe/Paris', weekStartDay: 1, testAccountFilters: [], groupTypes: [] }
  const node = parseQueryNode({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '-2d' } }) as TrendsQuery
  const live = new LiveTrends(node, environment, START)
  const at = Date.parse('2024-03-05T10:00:00Z')
  for (const [index, person] of ['a', 'b', 'a'].entries()) {
    live.add({ uuid: `u${index}`, event: '$pageview', timestamp: at + index * 60_000, distinctId: person, personId: person, personCreatedAt: at, properties: {}, personProperties: {} })
  }
  const before = live.answer(Date.parse('2024-03-05T22:59:00Z'))!.results[0]!
  const after = live.answer(Date.parse('2024-03-05T23:01:00Z'))!.results[0]!
  t.same(before.days, ['2024-03-03', '2024-03-04', '2024-03-05'], 'before midnight in Paris')
  t.same(before.data, [0, 0, 2])
  t.same(after.days, ['2024-03-04', '2024-03-05', '2024-03-06'], 'after midnight in Paris, with no event in between')
  t.same(after.data, [0, 2, 0])
  live.merge('b', 'a')
  t.same(live.answer(Date.parse('2024-03-05T23:01:00Z'))!.results[0]!.data, [0, 1, 0], 'two persons merged count once')
})

t.test('an explicit range that cuts an hour in two has no live answer; the engine counts it', async (t) => {
  const environment: QueryEnvironment = { timezone: 'UTC', weekStartDay: 0, testAccountFilters: [], groupTypes: [] }
  const node = parseQueryNode({ kind: 'TrendsQuery', interval: 'hour', series: [{ kind: 'EventsNode', event: 'x' }], dateRange: { date_from: '2024-03-05', date_to: '2024-03-06' } }) as TrendsQuery
  const live = new LiveTrends(node, environment, START)
  const now = Date.parse('2024-03-10T00:00:00Z')
  live.add({ uuid: 'u1', event: 'x', timestamp: Date.parse('2024-03-05T10:00:00Z'), distinctId: 'a', personId: 'a', personCreatedAt: 0, properties: {}, personProperties: {} })
  t.ok(live.answer(now), 'a live answer while no stored hour is cut by the range')
  live.add({ uuid: 'u2', event: 'x', timestamp: Date.parse('2024-03-06T00:30:00Z'), distinctId: 'a', personId: 'a', personCreatedAt: 0, properties: {}, personProperties: {} })
  t.equal(live.answer(now), null, 'the range ends at 2024-03-06T00:00:00.000, within the hour of the second event')
})

t.test('queries that read what an event does not fix are refused', async (t) => {
  const environment: QueryEnvironment = { timezone: 'UTC', weekStartDay: 0, testAccountFilters: [], groupTypes: [] }
  const refused = [
    { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x', math: 'avg', math_property: '$session_duration' }] },
    { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x', math: 'dau', math_group_type_index: 0 }] },
    { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x' }], interval: 'minute', dateRange: { date_from: '-1h' } },
    { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x' }], properties: [{ type: 'event', key: 'd', operator: 'is_date_after', value: '-7d' }] },
    { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'x' }], aggregation_group_type_index: 0 },
  ]
  for (const node of refused) t.throws(() => new LiveTrends(parseQueryNode(node) as TrendsQuery, environment, START), JSON.stringify(node))
})
