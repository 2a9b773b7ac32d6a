import { QueryRefused } from '../errors.js'
import type { RowContext } from '../properties/row-context.js'
import { parseDateInput } from '../time/date-input.js'
import { alignLocal, type ResolvedRange, type WeekStartDay } from '../time/date-range.js'
import type { Zone } from '../time/zone.js'

/** What a data point knows of one of its actors. */
export interface ActorFacts {
  /** The actor's events behind the data point. */
  eventCount: number
  readonly distinctIds: Set<string>
  /** Retention: the offsets at which the actor appears in its cohort. */
  appearances: number[] | null
}

/** The actors behind one data point of an insight. */
export interface Drill {
  readonly actors: Map<string, ActorFacts>
  /** Groups of this type are the actors; null for persons. */
  readonly groupTypeIndex: number | null
  /** Which facts mean something for this insight: `event_count`, `event_distinct_ids`, `appearances`. */
  readonly provides: Provides
}

export interface Provides {
  readonly eventCount?: boolean
  readonly distinctIds?: boolean
  readonly appearances?: boolean
}

export const newDrill = (groupTypeIndex: number | null, provides: Provides): Drill => ({ actors: new Map(), groupTypeIndex, provides })

/** Notes one of an actor's events behind the data point (none, for actors a data point holds without an event). */
export const addActor = (drill: Drill, actor: string, row: RowContext | null, events = 1): ActorFacts => {
  let facts = drill.actors.get(actor)
  if (!facts) drill.actors.set(actor, (facts = { eventCount: 0, distinctIds: new Set(), appearances: null }))
  if (row !== null) {
    facts.eventCount += events
    facts.distinctIds.add(row.event.distinctId)
  }
  return facts
}

/**
 * The bucket a data point's `day` names ('2024-01-01', '2024-01-01 13:00:00', an ISO
 * datetime): the index of the bucket holding that local time, or -1 when the range has none.
 */
export const bucketOfDay = (day: string | number, range: ResolvedRange, zone: Zone, weekStartDay: WeekStartDay, attr = 'day'): number => {
  const input = parseDateInput(String(day))
  if (input === null || input.kind === 'relative') throw new QueryRefused(`Invalid day ${JSON.stringify(day)}: use a date or datetime of the insight's buckets.`, 'invalid_input', attr)
  const local = input.kind === 'instant' ? zone.toLocal(input.instant) : input.local
  return range.buckets.indexOf(alignLocal(local, range.interval, weekStartDay))
}

/** A breakdown selector as a list of texts, the way PostHog flattens both sides before comparing. */
export const selectorParts = (selector: string | number | readonly (string | number)[]): string[] =>
  (Array.isArray(selector) ? selector : [selector]).map((part) => String(part))

export const sameParts = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((part, i) => part === b[i])
