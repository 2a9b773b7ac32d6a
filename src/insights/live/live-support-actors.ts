import type { Needs } from '../properties/compile-filters.js'
import type { LifecycleQuery, StickinessQuery } from '../schema/insight-queries.js'

/** Persons-on-events modes that read persons as they are now, which change without an event of the query. */
const CURRENT_PERSONS = ['person_id_override_properties_joined', 'person_id_no_override_properties_joined']

const isIndex = (value: unknown): boolean => value !== undefined && value !== null

/**
 * Why a query counting persons by what each event carries cannot be kept live, or null: not
 * sessions, groups (whose properties and creation change on their own), persons' properties as
 * they are now, property filters on dates relative to the moment of asking, or minute intervals.
 */
const eventsOnlyRefusal = (query: LifecycleQuery | StickinessQuery, needs: Needs): string | null => {
  if (query.interval === 'minute') return 'minute intervals are counted by the query engine'
  if (needs.sessions) return 'it reads session properties'
  if (needs.groupTypes.size > 0) return 'it reads group properties'
  if (isIndex(query.aggregation_group_type_index)) return 'it counts groups'
  const text = JSON.stringify(query)
  if (text.includes('"is_date_')) return 'it filters on dates relative to the moment of asking'
  const mode = query.modifiers?.personsOnEventsMode
  if (typeof mode === 'string' && CURRENT_PERSONS.includes(mode) && /"person"|person_properties/.test(text)) return 'it reads persons as they are now'
  return null
}

/**
 * Why a lifecycle query cannot be kept live, or null when it can. Persons' creation ("new") is
 * followed as events carry it and merges change it; a group's creation is not.
 */
export const liveLifecycleRefusal = (query: LifecycleQuery, needs: Needs): string | null => eventsOnlyRefusal(query, needs)

/** Why a stickiness query cannot be kept live, or null when it can: a series counting groups cannot. */
export const liveStickinessRefusal = (query: StickinessQuery, needs: Needs): string | null => {
  if (query.series.some((series) => 'math' in series && series.math === 'unique_group')) return 'it counts groups'
  return eventsOnlyRefusal(query, needs)
}
