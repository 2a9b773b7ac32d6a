import fc from 'fast-check'
import type { JsonObject } from '../../../src/eventlog/port.js'
import type { QueryEnvironment, QueryEvent } from '../../../src/insights/engine/data.js'
import type { LiveQuery } from '../../../src/insights/live/live-query.js'

export const DAY = 86_400_000
export const START = Date.parse('2024-02-20T00:00:00Z')
export const END = Date.parse('2024-04-12T00:00:00Z')

/** Persons 0 to 3 have a person; person 4's distinct ids have none (personless events, an actor per distinct id). */
const PERSONLESS = 4

/**
 * A step of a history: an event of one of five persons' distinct ids, or a merge of two of the
 * four persons that have one.
 */
export type Step =
  | { readonly kind: 'event'; readonly person: number; readonly id: number; readonly event: string; readonly at: number; readonly properties: JsonObject }
  | { readonly kind: 'merge'; readonly from: number; readonly into: number }

const properties = fc.record({
  plan: fc.constantFrom<unknown>('pro', 'free', 5, null, undefined),
  amount: fc.constantFrom<unknown>(1, 2.5, 10, '7', 'x', undefined),
  $browser: fc.constantFrom<unknown>('Chrome', 'Firefox', 'Safari', '', undefined),
}).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as JsonObject)

export const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('event' as const), person: fc.integer({ min: 0, max: 4 }), id: fc.integer({ min: 0, max: 1 }), event: fc.constantFrom('$pageview', 'signup'), at: fc.integer({ min: START, max: END + 3 * DAY }), properties }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('merge' as const), from: fc.integer({ min: 0, max: 3 }), into: fc.integer({ min: 0, max: 3 }) }) },
)

/** When each of the four persons was created: some before the events, some among them. */
export const creations = fc.array(fc.integer({ min: START - 10 * DAY, max: END }), { minLength: 4, maxLength: 4 })

/** Ranges a saved insight keeps: relative ones that move with the clock. */
export const RELATIVE_DAYS = [{ date_from: '-7d' }, { date_from: '-14d' }, { date_from: '-30d' }, { date_from: '-90d' }, { date_from: 'all' }, { date_from: '-2w', date_to: '-1w' }, { date_from: 'mStart' }]
export const RELATIVE_HOURS = [{ date_from: '-24h' }, { date_from: '-48h' }]

/** Live answers compared with the engine's, and moments without a live answer, over a whole run. */
export interface Tally {
  compared: number
  unanswered: number
}

export interface History<Query> {
  readonly query: Query
  readonly environment: QueryEnvironment
  readonly created: readonly number[]
  readonly steps: readonly Step[]
  readonly clock: readonly number[]
  /** How many days before its first answer the live query was built. */
  readonly built?: number
}

/**
 * Replays a history into a live query and asks it, after every step, at a moment after the step:
 * each answer beside the engine's over the same events, every event with its person as the
 * merges so far made it. As the persons projection has it, every event carries its person's
 * creation as it is now, and a merge keeps the earlier creation of the two persons; personless
 * events carry their own instant. A live answer must never be missing.
 */
export const replay = async <Query, Response>(
  { query, environment, created, steps, clock }: History<Query>,
  live: LiveQuery<Response>,
  engine: (query: Query, now: number, events: QueryEvent[]) => Promise<Response>,
  tally: Tally,
): Promise<readonly [unknown[], unknown[]]> => {
  const owner = [0, 1, 2, 3]
  const createdNow = [...created]
  const personOf = (person: number, id: number): string => (person === PERSONLESS ? `d${person}-${id}` : `p${owner[person]}`)
  const createdOf = (person: number, at: number): number => (person === PERSONLESS ? at : createdNow[owner[person]!]!)
  const added: Array<{ event: QueryEvent; person: number; id: number }> = []
  const live_: unknown[] = []
  const engine_: unknown[] = []
  for (const [index, one] of steps.entries()) {
    if (one.kind === 'merge') {
      const [from, into] = [owner[one.from]!, owner[one.into]!]
      if (from !== into) {
        live.merge(`p${from}`, `p${into}`)
        createdNow[into] = Math.min(createdNow[from]!, createdNow[into]!)
        for (let person = 0; person < owner.length; person++) if (owner[person] === from) owner[person] = into
      }
    } else {
      const event: QueryEvent = {
        uuid: `e${String(index).padStart(3, '0')}`, event: one.event, timestamp: one.at, distinctId: `d${one.person}-${one.id}`,
        personId: personOf(one.person, one.id), personCreatedAt: createdOf(one.person, one.at), properties: one.properties,
        personProperties: one.person % 2 === 0 ? { tier: 'gold' } : {},
      }
      added.push({ event, person: one.person, id: one.id })
      live.add(event)
    }
    const now = END - 5 * DAY + (clock[index % clock.length] ?? 0)
    const answer = live.answer(now)
    if (answer === null) {
      tally.unanswered++
      live_.push('no live answer')
      engine_.push('an answer')
      break
    }
    tally.compared++
    const events = added.map(({ event, person, id }) => ({ ...event, personId: personOf(person, id), personCreatedAt: createdOf(person, event.timestamp) }))
      .sort((a, b) => a.timestamp - b.timestamp || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0))
    live_.push(answer)
    engine_.push(await engine(query, now, events))
  }
  return [live_, engine_] as const
}
