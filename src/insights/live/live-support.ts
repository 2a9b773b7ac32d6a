import type { Needs } from '../properties/compile-filters.js'
import type { FunnelsQuery, TrendsQuery } from '../schema/insight-queries.js'

/** Persons-on-events modes that read persons as they are now, which change without an event of the query. */
const CURRENT_PERSONS = ['person_id_override_properties_joined', 'person_id_no_override_properties_joined']

/**
 * Why a query reads something its events do not fix when they are added, or null: sessions
 * (whose properties change with later events), groups (whose properties and type indexes change
 * on their own), persons as they are now, or property filters on dates relative to the moment of asking.
 */
const unfixedReads = (query: TrendsQuery | FunnelsQuery, needs: Needs): string | null => {
  if (needs.sessions) return 'it reads session properties'
  if (needs.groupTypes.size > 0) return 'it reads group properties'
  if (query.aggregation_group_type_index !== undefined && query.aggregation_group_type_index !== null) return 'it counts groups'
  const text = JSON.stringify(query)
  if (text.includes('"is_date_')) return 'it filters on dates relative to the moment of asking'
  const mode = (query as { modifiers?: { personsOnEventsMode?: unknown } | null }).modifiers?.personsOnEventsMode
  if (typeof mode === 'string' && CURRENT_PERSONS.includes(mode) && /"person"|person_properties/.test(text)) return 'it reads persons as they are now'
  return null
}

/**
 * Why a trends query cannot be kept live, or null when it can. A live answer is built from each
 * event as it comes, so the query may read only what an event carries, fixed when it is added
 * (see `unfixedReads`). Minute intervals are left to the engine.
 */
export const liveTrendsRefusal = (query: TrendsQuery, needs: Needs): string | null => {
  if (query.interval === 'minute') return 'minute intervals are counted by the query engine'
  if (query.series.some((series) => 'math_group_type_index' in series && series.math_group_type_index !== undefined && series.math_group_type_index !== null)) return 'it counts groups'
  return unfixedReads(query, needs)
}

/**
 * Why a funnel query cannot be kept live, or null when it can: it may read only what each event
 * carries when it is added (see `unfixedReads`), and its actors must be persons, whose rows a
 * merge moves. Minute intervals are left to the engine.
 */
export const liveFunnelsRefusal = (query: FunnelsQuery, needs: Needs): string | null => {
  if (query.interval === 'minute') return 'minute intervals are counted by the query engine'
  return unfixedReads(query, needs)
}
