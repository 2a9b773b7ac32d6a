import type { Needs } from '../properties/compile-filters.js'
import type { QueryEnvironment } from '../engine/data.js'
import type { FunnelsQuery, LifecycleQuery, RetentionQuery, StickinessQuery, TrendsQuery } from '../schema/insight-queries.js'

/** Persons-on-events modes that read persons as they are now, which change without an event of the query. */
const CURRENT_PERSONS = ['person_id_override_properties_joined', 'person_id_no_override_properties_joined']

type Fixed = TrendsQuery | FunnelsQuery | RetentionQuery | LifecycleQuery | StickinessQuery

const readsCurrentPersons = (query: Fixed): boolean => {
  const mode = (query as { modifiers?: { personsOnEventsMode?: unknown } | null }).modifiers?.personsOnEventsMode
  return typeof mode === 'string' && CURRENT_PERSONS.includes(mode)
}

/** Whether a filter (or a group of them, at any depth) reads the event's person id, which a merge changes. */
const readsPersonId = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.some(readsPersonId)
  if (value === null || typeof value !== 'object') return false
  const object = value as Record<string, unknown>
  if (object['type'] === 'event_metadata' && object['key'] === 'person_id') return true
  return Object.values(object).some(readsPersonId)
}

/**
 * Why a query reads something its events do not fix when they are added, or null: sessions
 * (whose properties change with later events), groups (whose properties and type indexes change
 * on their own, nor may it count them: their keys go through the environment's group types),
 * persons as they are now, the person id itself in a filter (a merge changes it after the event
 * was judged), or property filters on dates relative to the moment of asking. The environment's
 * test-account filters count as the query's own when it uses them.
 */
const unfixedReads = (query: Fixed, needs: Needs, environment: QueryEnvironment): string | null => {
  if (needs.sessions) return 'it reads session properties'
  if (needs.groupTypes.size > 0) return 'it reads group properties'
  if (query.aggregation_group_type_index !== undefined && query.aggregation_group_type_index !== null) return 'it counts groups'
  const filters = [query, query.filterTestAccounts === true ? environment.testAccountFilters : []]
  const text = JSON.stringify(filters)
  if (text.includes('"is_date_')) return 'it filters on dates relative to the moment of asking'
  if (readsCurrentPersons(query) && (query.filterTestAccounts === true || /"person"|"person_properties"|person\./.test(text))) return 'it reads persons as they are now'
  if (readsPersonId(filters)) return 'it filters on person ids, which merges change after the event'
  return null
}

/**
 * Why a trends query cannot be kept live, or null when it can. A live answer is built from each
 * event as it comes, so the query may read only what an event carries, fixed when it is added
 * (see `unfixedReads`). Minute intervals are left to the engine.
 */
export const liveTrendsRefusal = (query: TrendsQuery, needs: Needs, environment: QueryEnvironment): string | null => {
  if (query.interval === 'minute') return 'minute intervals are counted by the query engine'
  if (query.series.some((series) => 'math_group_type_index' in series && series.math_group_type_index !== undefined && series.math_group_type_index !== null)) return 'it counts groups'
  return unfixedReads(query, needs, environment)
}

/**
 * Why a funnel query cannot be kept live, or null when it can: it may read only what each event
 * carries when it is added (see `unfixedReads`), and its actors must be persons, whose rows a
 * merge moves. Minute intervals are left to the engine.
 */
export const liveFunnelsRefusal = (query: FunnelsQuery, needs: Needs, environment: QueryEnvironment): string | null => {
  if (query.interval === 'minute') return 'minute intervals are counted by the query engine'
  return unfixedReads(query, needs, environment)
}

/**
 * Why a retention query cannot be kept live, or null when it can. What each event is to the
 * query (target, return, breakdown value) is fixed when it is added and only its person may
 * change (see `unfixedReads`).
 */
export const liveRetentionRefusal = (query: RetentionQuery, needs: Needs, environment: QueryEnvironment): string | null =>
  unfixedReads(query, needs, environment)

/**
 * Why a lifecycle query cannot be kept live, or null when it can (see `unfixedReads`). Persons'
 * creation ("new") is followed as events carry it and merges change it; a group's creation is
 * not. Minute intervals are left to the engine.
 */
export const liveLifecycleRefusal = (query: LifecycleQuery, needs: Needs, environment: QueryEnvironment): string | null => {
  if (query.interval === 'minute') return 'minute intervals are counted by the query engine'
  return unfixedReads(query, needs, environment)
}

/** Why a stickiness query cannot be kept live, or null when it can (see `unfixedReads`): a series counting groups cannot. */
export const liveStickinessRefusal = (query: StickinessQuery, needs: Needs, environment: QueryEnvironment): string | null => {
  if (query.interval === 'minute') return 'minute intervals are counted by the query engine'
  if (query.series.some((series) => 'math' in series && series.math === 'unique_group')) return 'it counts groups'
  return unfixedReads(query, needs, environment)
}
