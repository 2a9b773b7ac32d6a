import fc from 'fast-check'
import t from 'tap'
import type { JsonObject } from '../../src/eventlog/port.js'
import type { QueryEnvironment, QueryEvent } from '../../src/insights/engine/data.js'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import type { FunnelStep } from '../../src/insights/funnels/funnel-results.js'
import type { FunnelTrendsSeries } from '../../src/insights/funnels/funnel-views.js'
import { runFunnels, type FunnelsResponse } from '../../src/insights/funnels/run-funnels.js'
import { LiveFunnels } from '../../src/insights/live/live-funnels.js'
import { liveQueryOf } from '../../src/insights/live/live-kinds.js'
import type { LiveQuery } from '../../src/insights/live/live-query.js'
import type { FunnelsQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { agreeOnRandomInputs } from './support/agree.js'
import { funnelNode, funnelQuery } from './support/random-funnels.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const START = Date.parse('2024-02-20T00:00:00Z')
const END = Date.parse('2024-04-12T00:00:00Z')

/** A step of a history: an event of one of four persons' distinct ids, or a merge of two persons. */
type Step =
  | { readonly kind: 'event'; readonly person: number; readonly id: number; readonly event: string; readonly at: number; readonly properties: JsonObject }
  | { readonly kind: 'merge'; readonly from: number; readonly into: number }

const properties = fc.record({
  $browser: fc.constantFrom<unknown>('Chrome', 'Chrome', 'Safari', '', undefined),
  plan: fc.constantFrom<unknown>('pro', 'free', undefined),
}).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as JsonObject)

/**
 * Events mostly in the days before the moments asked (some after them), on a three-hour grid so
 * that steps share instants and sit on window bounds; some at any millisecond, and a few weeks
 * earlier for the longer ranges.
 */
const GRID = Date.parse('2024-04-03T00:00:00Z')
const instant = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 10 * 8 }).map((slot) => GRID + slot * 3 * HOUR) },
  { weight: 1, arbitrary: fc.integer({ min: GRID - 7 * DAY, max: END + 5 * DAY }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: (END - START) / HOUR }).map((hours) => START + hours * HOUR) },
)

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 7, arbitrary: fc.record({ kind: fc.constant('event' as const), person: fc.integer({ min: 0, max: 3 }), id: fc.integer({ min: 0, max: 1 }), event: fc.constantFrom('a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'x', 'other'), at: instant, properties }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('merge' as const), from: fc.integer({ min: 0, max: 3 }), into: fc.integer({ min: 0, max: 3 }) }) },
)

/** Ranges a saved insight keeps, which move with the clock, and a few fixed ones. */
const RANGES: Record<string, readonly Record<string, string>[]> = {
  day: [{ date_from: '-7d' }, { date_from: '-14d' }, { date_from: '-30d' }, { date_from: '-90d' }, { date_from: 'all' }, { date_from: '-2w', date_to: '-1w' }, { date_from: 'mStart' }, { date_from: '2024-03-25', date_to: '2024-04-09' }],
  hour: [{ date_from: '-24h' }, { date_from: '-48h' }, { date_from: '-3d' }, { date_from: '2024-04-08T06:00:00', date_to: '2024-04-10T18:30:00' }],
  week: [{ date_from: '-30d' }, { date_from: '-90d' }, { date_from: 'all' }],
  month: [{ date_from: '-90d' }, { date_from: 'all' }],
}

const liveQuery = fc.record({
  funnel: funnelQuery,
  viz: fc.constantFrom('steps', 'steps', 'trends', 'time_to_convert'),
  interval: fc.constantFrom('day', 'day', 'hour', 'week', 'month'),
  pick: fc.nat(),
  person: fc.boolean(),
  filtered: fc.boolean(),
  conversion: fc.option(fc.record({ from: fc.nat(), span: fc.nat(), bins: fc.option(fc.integer({ min: 1, max: 12 })) }), { nil: undefined }),
  weekStartDay: fc.constantFrom<0 | 1>(0, 1),
}).map((q) => {
  const node = funnelNode(q.funnel) as Record<string, unknown> & { funnelsFilter: Record<string, unknown>; breakdownFilter?: Record<string, unknown> }
  const interval = q.viz === 'trends' ? q.interval : q.interval === 'hour' ? 'hour' : 'day'
  const ranges = RANGES[interval]!
  node.dateRange = ranges[q.pick % ranges.length]
  node.interval = interval
  node.funnelsFilter.funnelVizType = q.viz
  const steps = q.funnel.steps.length
  if (q.conversion !== undefined) {
    const from = q.conversion.from % (steps - 1)
    node.funnelsFilter.funnelFromStep = from
    node.funnelsFilter.funnelToStep = from + 1 + (q.conversion.span % (steps - 1 - from))
    if (q.conversion.bins !== null) node.funnelsFilter.binCount = q.conversion.bins
  }
  // Person properties as they were at each event: a person's events may disagree after merges.
  if (q.person && node.breakdownFilter) node.breakdownFilter = { ...node.breakdownFilter, breakdown: 'tier', breakdown_type: 'person' }
  if (q.filtered) node.properties = [{ type: 'event', key: 'plan', operator: 'is_not', value: 'free' }]
  return { timezone: q.funnel.timezone, weekStartDay: q.weekStartDay, node: parseQueryNode(node) as FunnelsQuery }
})

/** Live answers compared with the engine's over a whole run, and moments without a live answer. */
const tally = { compared: 0, unanswered: 0, nonEmpty: 0 }

const converts = (response: FunnelsResponse): boolean => {
  const { results } = response
  if (!Array.isArray(results)) return results.bins.some(([, n]) => n > 0)
  const flat = (results as unknown[]).flat() as (FunnelStep | FunnelTrendsSeries)[]
  return flat.some((item) => ('count' in item && 'order' in item ? item.order > 0 && item.count > 0 : (item as FunnelTrendsSeries).data.some((n) => n > 0)))
}

/**
 * Replays a history into a live funnel and asks it, after every step, at a moment of the
 * following days: each answer beside the engine's over the same events, every event with its
 * person as the merges so far made it.
 */
const replay = async ([{ timezone, weekStartDay, node }, steps, clock, built]: [{ timezone: string; weekStartDay: 0 | 1; node: FunnelsQuery }, Step[], number[], number]) => {
  const environment: QueryEnvironment = { timezone, weekStartDay, testAccountFilters: [], groupTypes: [] }
  // Built some days before it is first asked, so that old and late events reach a range that has moved on.
  const live = liveQueryOf(node, environment, END - 4 * DAY - built * DAY) as LiveQuery<FunnelsResponse>
  const owner = [0, 1, 2, 3]
  const personOf = (person: number): string => `p${owner[person]}`
  const added: Array<{ event: QueryEvent; person: number }> = []
  const liveAnswers: unknown[] = []
  const engineAnswers: unknown[] = []
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
        personId: personOf(one.person), personCreatedAt: START - DAY, properties: one.properties,
        personProperties: one.person % 2 === 0 ? { tier: one.id === 0 ? 'gold' : 'silver' } : {},
      }
      added.push({ event, person: one.person })
      live.add(event)
    }
    const now = END - 4 * DAY + (clock[index % clock.length] ?? 0)
    const answer = live.answer(now)
    if (answer === null) {
      tally.unanswered++
      continue
    }
    tally.compared++
    if (converts(answer)) tally.nonEmpty++
    const events = added.map(({ event, person }) => ({ ...event, personId: personOf(person) }))
      .sort((a, b) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0))
    liveAnswers.push(answer)
    engineAnswers.push(await runFunnels(node, { environment, now }, memorySource(events)))
  }
  return [liveAnswers, engineAnswers] as const
}

t.test('a live funnel answers as the engine does after every event, merge and tick of the clock of random histories', async (t) => {
  const history = fc.tuple(liveQuery, fc.array(step, { minLength: 4, maxLength: 30, size: 'max' }), fc.array(fc.integer({ min: 0, max: 6 * DAY }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 40 }))
  await agreeOnRandomInputs(t, history, replay, { runs: 300, seed: 20261128 })
  t.equal(tally.unanswered, 0, 'a live funnel always answers: it keeps its rows whole')
  t.ok(tally.nonEmpty > tally.compared / 25, `${tally.compared} live answers compared, ${tally.nonEmpty} with a conversion`)
})

const pageview = (uuid: string, event: string, person: string, at: string): QueryEvent =>
  ({ uuid, event, timestamp: Date.parse(at), distinctId: person, personId: person, personCreatedAt: 0, properties: {}, personProperties: {} })

t.test('a live funnel moves with the clock, and a merge joins two persons\' steps', async (t) => {
  const environment: QueryEnvironment = { timezone: 'Europe/Paris', weekStartDay: 1, testAccountFilters: [], groupTypes: [] }
  const node = parseQueryNode({
    kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }], dateRange: { date_from: '-1d' },
  }) as FunnelsQuery
  const live = new LiveFunnels(node, environment, START)
  live.add(pageview('u1', 'signup', 'a', '2024-03-04T10:00:00Z'))
  live.add(pageview('u2', 'purchase', 'a', '2024-03-04T12:00:00Z'))
  live.add(pageview('u3', 'signup', 'b', '2024-03-05T09:00:00Z'))
  live.add(pageview('u4', 'purchase', 'c', '2024-03-05T09:30:00Z'))
  const counts = (now: string) => (live.answer(Date.parse(now))!.results as FunnelStep[]).map((step) => step.count)
  t.same(counts('2024-03-05T22:59:00Z'), [2, 1], 'before midnight in Paris: yesterday and today, a converted and b not')
  t.same(counts('2024-03-05T23:01:00Z'), [1, 0], 'after midnight in Paris, with no event in between: a\'s day has left the range')
  live.merge('c', 'b')
  t.same(counts('2024-03-05T23:01:00Z'), [1, 1], 'c merged into b: b signed up and purchased')
  const steps = live.answer(Date.parse('2024-03-05T23:01:00Z'))!.results as FunnelStep[]
  t.equal(steps[1]!.average_conversion_time, 1800, 'half an hour from signup to purchase')
})

t.test('conversion times are added up in the order the engine meets persons, so means agree to the last bit', async (t) => {
  const environment: QueryEnvironment = { timezone: 'UTC', weekStartDay: 0, testAccountFilters: [], groupTypes: [] }
  const node = parseQueryNode({
    kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }], dateRange: { date_from: '-7d' },
  }) as FunnelsQuery
  const live = new LiveFunnels(node, environment, START)
  const now = Date.parse('2024-03-06T00:00:00Z')
  const added: QueryEvent[] = []
  const average = (response: FunnelsResponse) => (response.results as FunnelStep[])[1]!.average_conversion_time
  const both = async (events: QueryEvent[]) => {
    for (const event of events) live.add(event)
    added.push(...events)
    const engine = await runFunnels(node, { environment, now }, memorySource([...added].sort((a, b) => a.timestamp - b.timestamp)))
    return [average(live.answer(now)!), average(engine)]
  }
  // b takes 0.2 s to convert, c 0.3 s and a 0.1 s: a scan meets them in that order, and adds 0.2 + 0.3 + 0.1.
  const [live1, engine1] = await both([
    pageview('b1', 'signup', 'b', '2024-03-05T10:00:01.000Z'), pageview('b2', 'purchase', 'b', '2024-03-05T10:00:01.200Z'),
    pageview('c1', 'signup', 'c', '2024-03-05T10:00:02.000Z'), pageview('c2', 'purchase', 'c', '2024-03-05T10:00:02.300Z'),
    pageview('a1', 'signup', 'a', '2024-03-05T10:00:05.000Z'), pageview('a2', 'purchase', 'a', '2024-03-05T10:00:05.100Z'),
  ])
  t.equal(engine1, (0.2 + 0.3 + 0.1) / 3)
  t.equal(live1, engine1)
  // An earlier signup of a, which does not change its conversion time: a scan now meets a first and adds 0.1 + 0.2 + 0.3.
  const [live2, engine2] = await both([pageview('a0', 'signup', 'a', '2024-03-05T10:00:00.000Z')])
  t.equal(engine2, (0.1 + 0.2 + 0.3) / 3)
  t.not(engine2, engine1, 'the same times added up in another order')
  t.equal(live2, engine2)
})

t.test('funnel queries that read what an event does not fix are refused', async (t) => {
  const environment: QueryEnvironment = { timezone: 'UTC', weekStartDay: 0, testAccountFilters: [], groupTypes: [{ group_type: 'company', group_type_index: 0 }] }
  const series = [{ kind: 'EventsNode', event: 'a' }, { kind: 'EventsNode', event: 'b' }]
  const refused = [
    { kind: 'FunnelsQuery', series, properties: [{ type: 'session', key: '$session_duration', operator: 'gt', value: 10 }] },
    { kind: 'FunnelsQuery', series, aggregation_group_type_index: 0 },
    { kind: 'FunnelsQuery', series, breakdownFilter: { breakdown: 'name', breakdown_type: 'group', breakdown_group_type_index: 0 } },
    { kind: 'FunnelsQuery', series, interval: 'minute', dateRange: { date_from: '-1h' } },
    { kind: 'FunnelsQuery', series, properties: [{ type: 'event', key: 'd', operator: 'is_date_after', value: '-7d' }] },
    { kind: 'FunnelsQuery', series, breakdownFilter: { breakdown: 'tier', breakdown_type: 'person' }, modifiers: { personsOnEventsMode: 'person_id_override_properties_joined' } },
  ]
  for (const node of refused) t.throws(() => new LiveFunnels(parseQueryNode(node) as FunnelsQuery, environment, START), /cannot be answered live/, JSON.stringify(node))
})
