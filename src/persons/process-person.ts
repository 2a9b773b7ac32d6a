import { createPerson, mergeDistinctIds, mergeRequestOf, personOf, type MergeOutcome } from './identity.js'
import type { NormalisedEvent } from './normalise.js'
import { applyOperations, operationsOf, worthWriting, type PropertyOperations } from './properties.js'
import type { PersonTables } from './records.js'

/** These events are stored but never create or update a person. */
const NO_PERSON_EVENTS = new Set(['$exception', '$$heatmap'])

export type PersonOutcome = 'skipped' | 'personless' | 'created' | 'updated' | 'unchanged'

/** Remembers that a distinct id was used without a person, for the UUID choice of a later merge. */
const rememberPersonless = (tables: PersonTables, distinctId: string): void => {
  if (tables.distinctId(distinctId)) return
  tables.putDistinctId({ environment_id: tables.environmentId, distinct_id: distinctId, person_id: null })
}

/** Applies the event's `$set_once`, `$set`, `$unset` to its person, creating the person if needed. */
const updatePerson = (
  tables: PersonTables, event: NormalisedEvent, operations: PropertyOperations, identified: boolean,
): PersonOutcome => {
  const person = personOf(tables, event.distinctId)
  if (!person) {
    createPerson(tables, [event.distinctId], event, operations, identified)
    return 'created'
  }
  const change = applyOperations(person.properties, operations)
  const newlyIdentified = identified && !person.is_identified
  if (!newlyIdentified && (change === null || !worthWriting(event.event, change))) return 'unchanged'
  tables.putPerson({
    ...person,
    properties: change?.properties ?? person.properties,
    is_identified: person.is_identified || identified,
    version: person.version + 1,
  })
  return 'updated'
}

export interface PersonResult {
  readonly person: PersonOutcome
  readonly merge: MergeOutcome | null
}

/**
 * Person processing of one normalised event, in PostHog's order: a merge first (`$identify`
 * with `$anon_distinct_id`, `$create_alias`, `$merge_dangerously`), then the property update of
 * the event's person.
 */
export const processPersonEvent = (tables: PersonTables, event: NormalisedEvent): PersonResult => {
  if (NO_PERSON_EVENTS.has(event.event)) return { person: 'skipped', merge: null }
  if (!event.processPerson) {
    rememberPersonless(tables, event.distinctId)
    return { person: 'personless', merge: null }
  }
  const operations = operationsOf(event)
  const request = mergeRequestOf(event)
  const merge = request && mergeDistinctIds(tables, request, event, operations)
  const identified = merge !== null && merge !== 'same_id' && merge !== 'illegal_id'
  return { person: updatePerson(tables, event, operations, identified), merge }
}
