import fc from 'fast-check'
import t from 'tap'
import type { JsonObject } from '../../src/eventlog/port.js'
import type { QueryEnvironment, QueryEvent } from '../../src/insights/engine/data.js'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { LiveRetention } from '../../src/insights/live/live-retention.js'
import { liveQueryOf } from '../../src/insights/live/live-kinds.js'
import type { LiveQuery } from '../../src/insights/live/live-query.js'
import { runRetention, type RetentionResponse } from '../../src/insights/retention/run-retention.js'
import type { RetentionQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { agreeOnRandomInputs } from './support/agree.js'
import { retentionNode, retentionQuery } from './support/random-retention.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
/** Events fall from 27 December to 24 January, half of them on 2–5 January (for hourly cohorts). */
const START = Date.parse('2023-12-27T00:00:00Z')
const END = Date.parse('2024-01-24T00:00:00Z')
const BUSY = Date.parse('2024-01-02T00:00:00Z')

/** A step of a history: an event of one of four persons' distinct ids, or a merge of two persons. */
type Step =
  | { readonly kind: 'event'; readonly person: number; readonly id: number; readonly event: string; readonly at: number; readonly properties: JsonObject }
  | { readonly kind: 'merge'; readonly from: number; readonly into: number }

const properties = fc.record({
  $browser: fc.constantFrom<unknown>('Chrome', 'Safari', '', undefined),
}).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as JsonObject)

// Minutes, so that events share instants now and then.
const instant = fc.oneof(
  fc.integer({ min: 0, max: (END - START) / 60_000 }).map((m) => START + m * 60_000),
  fc.integer({ min: 0, max: 4 * 24 * 60 }).map((m) => BUSY + m * 60_000),
)

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('event' as const), person: fc.integer({ min: 0, max: 3 }), id: fc.integer({ min: 0, max: 1 }), event: fc.constantFrom('view', 'view', 'signup', 'other'), at: instant, properties }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('merge' as const), from: fc.integer({ min: 0, max: 3 }), into: fc.integer({ min: 0, max: 3 }) }) },
)

/** Ranges a saved insight keeps: relative ones that move with the clock (none at all included), beside the generator's fixed days. */
const RELATIVE = [null, { date_from: '-7d' }, { date_from: '-14d' }, { date_from: '-30d' }, { date_from: 'all' }, { date_from: '-2w', date_to: '-1w' }, { date_from: 'mStart' }, { date_from: '-3m' }]
const RELATIVE_HOURS = [null, { date_from: '-24h' }, { date_from: '-48h' }, { date_from: '-3d' }]

interface LiveCase {
  readonly environment: QueryEnvironment
  readonly node: RetentionQuery
  readonly relative: boolean
}

const liveQuery: fc.Arbitrary<LiveCase> = fc.tuple(retentionQuery, fc.nat(15), fc.boolean(), fc.boolean()).map(([q, pick, byPerson, testAccounts]) => {
  const node = retentionNode(q) as { dateRange?: unknown; breakdownFilter?: Record<string, unknown>; filterTestAccounts?: boolean }
  const relative = q.period === 'Hour' ? RELATIVE_HOURS : RELATIVE
  const isRelative = pick < relative.length
  if (isRelative) {
    const range = relative[pick]
    if (range === null) delete node.dateRange
    else node.dateRange = range
  }
  if (byPerson && node.breakdownFilter) node.breakdownFilter = { ...node.breakdownFilter, breakdown: 'tier', breakdown_type: 'person' }
  if (testAccounts) node.filterTestAccounts = true
  const environment: QueryEnvironment = {
    timezone: q.timezone, weekStartDay: q.weekStartDay, groupTypes: [],
    testAccountFilters: [{ type: 'person', key: 'tier', operator: 'is_not', value: 'staff' }],
  }
  return { environment, node: parseQueryNode(node) as RetentionQuery, relative: isRelative }
})

/** Live answers compared with the engine's over a whole run. */
const tally = { compared: 0, relative: 0, counted: 0, unanswered: 0 }

/**
 * Replays a history into a live query and asks it, after every step, at some moment: each answer
 * beside the engine's over the same events, every event with its person as the merges so far made
 * it (sorted by time, then uuid, as the store reads them).
 */
const replay = async ([{ environment, node, relative }, steps, clock, built]: [LiveCase, Step[], number[], number]) => {
  // Built some days before it is first asked, so that old and late events reach a range that has moved on.
  const live = liveQueryOf(node, environment, BUSY - 2 * DAY - built * DAY) as LiveQuery<RetentionResponse>
  const owner = [0, 1, 2, 3]
  const personOf = (person: number): string => `p${owner[person]}`
  const added: Array<{ event: QueryEvent; person: number }> = []
  const liveAnswers: unknown[] = []
  const engineAnswers: unknown[] = []
  const hourly = node.retentionFilter.period === 'Hour'
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
        personProperties: [{ tier: 'gold' }, {}, { tier: 'staff' }, { tier: 'silver' }][(one.person + one.id) % 4]!,
      }
      added.push({ event, person: one.person })
      live.add(event)
    }
    const tick = clock[index % clock.length] ?? 0
    const now = hourly ? BUSY + (tick % (4 * DAY)) : BUSY - 2 * DAY + tick
    const answer: RetentionResponse | null = live.answer(now)
    if (answer === null) {
      tally.unanswered++
      liveAnswers.push('no live answer')
      engineAnswers.push('an answer')
      break
    }
    tally.compared++
    if (relative) tally.relative++
    if (answer.results.some((row) => row.values.some((value) => value.count > 0))) tally.counted++
    const events = added.map(({ event, person }) => ({ ...event, personId: personOf(person) }))
      .sort((a, b) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0))
    liveAnswers.push(answer)
    engineAnswers.push(await runRetention(node, { environment, now }, memorySource(events)))
  }
  return [liveAnswers, engineAnswers] as const
}

t.test('a live retention query answers as the engine does after every event, merge and tick of the clock of random histories', async (t) => {
  const history = fc.tuple(liveQuery, fc.array(step, { minLength: 1, maxLength: 30, size: 'max' }), fc.array(fc.integer({ min: 0, max: 24 * DAY }), { minLength: 1, maxLength: 6 }), fc.integer({ min: 0, max: 40 }))
  await agreeOnRandomInputs(t, history, replay, { runs: 250, seed: 20261128 })
  t.equal(tally.unanswered, 0, 'every event is kept whole: a live answer at every moment')
  t.ok(tally.relative > tally.compared / 4 && tally.counted > tally.compared / 3,
    `${tally.compared} live answers compared, ${tally.relative} of them for relative ranges, ${tally.counted} counting someone`)
})

const view = (uuid: string, person: string, at: string): QueryEvent =>
  ({ uuid, event: '$pageview', timestamp: Date.parse(at), distinctId: person, personId: person, personCreatedAt: 0, properties: {}, personProperties: {} })

t.test('a live retention query moves with the clock at midnight, and a merge joins two persons\' cohorts', async (t) => {
  const environment: QueryEnvironment = { timezone: 'Europe/Paris', weekStartDay: 1, testAccountFilters: [], groupTypes: [] }
  const node = parseQueryNode({ kind: 'RetentionQuery', retentionFilter: { period: 'Day', totalIntervals: 3, retentionType: 'retention_first_time' }, dateRange: { date_from: '-2d' } }) as RetentionQuery
  const live = new LiveRetention(node, environment, 0)
  live.add(view('u1', 'a', '2024-03-04T09:00:00Z'))
  live.add(view('u2', 'a', '2024-03-05T09:00:00Z'))
  live.add(view('u3', 'b', '2024-03-05T12:00:00Z'))
  const cells = (response: RetentionResponse) => response.results.map((row) => [row.date.slice(0, 10), row.values.map((value) => value.count)])
  const before = live.answer(Date.parse('2024-03-05T22:59:00Z'))
  t.same(cells(before!), [['2024-03-03', [0, 0, 0]], ['2024-03-04', [1, 1, 0]], ['2024-03-05', [1, 0, 0]]], 'before midnight in Paris: a from the 4th, back on the 5th; b new on the 5th')
  const after = live.answer(Date.parse('2024-03-05T23:01:00Z'))
  t.same(cells(after!), [['2024-03-04', [1, 1, 0]], ['2024-03-05', [1, 0, 0]], ['2024-03-06', [0, 0, 0]]], 'after midnight in Paris, with no event in between')
  live.merge('b', 'a')
  t.same(cells(live.answer(Date.parse('2024-03-05T23:01:00Z'))!), [['2024-03-04', [1, 1, 0]], ['2024-03-05', [0, 0, 0]], ['2024-03-06', [0, 0, 0]]],
    'b merged into a: its first view is a\'s first no longer')
  live.add(view('u4', 'a', '2024-03-03T09:00:00Z'))
  t.same(cells(live.answer(Date.parse('2024-03-05T23:01:00Z'))!), [['2024-03-04', [0, 0, 0]], ['2024-03-05', [0, 0, 0]], ['2024-03-06', [0, 0, 0]]],
    'a late event moves a\'s first view out of the range')
})

t.test('retention queries that read what an event does not fix are refused', async (t) => {
  const environment: QueryEnvironment = { timezone: 'UTC', weekStartDay: 0, testAccountFilters: [{ type: 'event', key: 'd', operator: 'is_date_before', value: '-1d' }], groupTypes: [] }
  const retentionFilter = { period: 'Day', targetEntity: { id: 'x', type: 'events' }, returningEntity: { id: 'x', type: 'events' } }
  const refused = [
    { kind: 'RetentionQuery', retentionFilter, properties: [{ type: 'session', key: '$session_duration', operator: 'gt', value: 10 }] },
    { kind: 'RetentionQuery', retentionFilter, properties: [{ type: 'group', key: 'plan', operator: 'exact', value: 'pro', group_type_index: 0 }] },
    { kind: 'RetentionQuery', retentionFilter, aggregation_group_type_index: 0 },
    { kind: 'RetentionQuery', retentionFilter, breakdownFilter: { breakdown: '$session_duration', breakdown_type: 'session' } },
    { kind: 'RetentionQuery', retentionFilter, properties: [{ type: 'event', key: 'd', operator: 'is_date_after', value: '-7d' }] },
    { kind: 'RetentionQuery', retentionFilter, filterTestAccounts: true },
    { kind: 'RetentionQuery', retentionFilter, properties: [{ type: 'event_metadata', key: 'person_id', operator: 'exact', value: 'p1' }] },
    { kind: 'RetentionQuery', retentionFilter, breakdownFilter: { breakdown: 'tier', breakdown_type: 'person' }, modifiers: { personsOnEventsMode: 'person_id_override_properties_joined' } },
    { kind: 'RetentionQuery', retentionFilter: { ...retentionFilter, retentionType: 'retention_first_ever_occurrence' } },
  ]
  for (const node of refused) {
    t.throws(() => new LiveRetention(parseQueryNode(node) as RetentionQuery, environment, START), /cannot be answered live|not supported/, JSON.stringify(node))
  }
  const kept = { kind: 'RetentionQuery', retentionFilter, breakdownFilter: { breakdown: 'tier', breakdown_type: 'person' } }
  t.doesNotThrow(() => new LiveRetention(parseQueryNode(kept) as RetentionQuery, environment, START), 'person properties as they were at each event')
})
