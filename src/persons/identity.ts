import { appendDistinctIds, distinctIdsOf, dropDistinctIdPages, moveDistinctIdFirst } from './distinct-id-pages.js'
import { isIllegalDistinctId } from './illegal-ids.js'
import type { NormalisedEvent } from './normalise.js'
import { createdProperties, type PropertyOperations } from './properties.js'
import { personUuid } from './person-uuid.js'
import type { PersonRecord, PersonTables } from './records.js'

/** Two distinct ids an event asks to join: `source`'s person goes into `target`'s. */
export interface MergeRequest {
  readonly source: string
  readonly target: string
  /** `$merge_dangerously` may merge a person that is already identified. */
  readonly dangerous: boolean
  /** `$create_alias` and `$merge_dangerously` name the source `alias`; it is listed first afterwards. */
  readonly alias: boolean
}

export type MergeOutcome =
  | 'same_id' | 'illegal_id' | 'created' | 'attached' | 'already_joined' | 'merged' | 'refused_already_identified'

/** What an event asks to merge, if anything. `$identify` without `$anon_distinct_id` merges nothing. */
export const mergeRequestOf = (event: NormalisedEvent): MergeRequest | null => {
  const { properties } = event
  if ((event.event === '$create_alias' || event.event === '$merge_dangerously') && properties['alias']) {
    return { source: String(properties['alias']), target: event.distinctId, dangerous: event.event === '$merge_dangerously', alias: true }
  }
  if (event.event === '$identify' && Object.hasOwn(properties, '$anon_distinct_id')) {
    return { source: String(properties['$anon_distinct_id']), target: event.distinctId, dangerous: false, alias: false }
  }
  return null
}

/** The person a distinct id belongs to, if it has one. */
export const personOf = (tables: PersonTables, distinctId: string): PersonRecord | null => {
  const personId = tables.distinctId(distinctId)?.person_id
  return personId ? tables.person(personId) : null
}

/** Creates a person holding `distinctIds`; its UUID follows from the first. */
export const createPerson = (
  tables: PersonTables, distinctIds: readonly [string, ...string[]], event: NormalisedEvent,
  operations: PropertyOperations, identified: boolean,
): PersonRecord => {
  const { environmentId } = tables
  const person = appendDistinctIds(tables, {
    id: tables.nextPersonId(),
    uuid: personUuid(environmentId, distinctIds[0]),
    environment_id: environmentId,
    properties: createdProperties(operations, event.uuid),
    distinct_ids: [],
    first_page: 0,
    last_page: 0,
    is_identified: identified,
    created_at: event.timestamp,
    version: 0,
  }, distinctIds)
  tables.putPerson(person)
  return person
}

const attach = (tables: PersonTables, person: PersonRecord, distinctId: string): void => {
  const attached = appendDistinctIds(tables, person, [distinctId])
  if (attached !== person) tables.putPerson(attached)
}

/** The source person's properties under the target's, the earlier creation time, all distinct ids (the source's after the target's). */
const mergePeople = (tables: PersonTables, source: PersonRecord, target: PersonRecord): void => {
  tables.putPerson(appendDistinctIds(tables, {
    ...target,
    properties: { ...source.properties, ...target.properties },
    created_at: source.created_at < target.created_at ? source.created_at : target.created_at,
    is_identified: true,
    version: Math.max(source.version, target.version) + 1,
  }, distinctIdsOf(tables, source)))
  dropDistinctIdPages(tables, source)
  tables.deletePerson(source.uuid)
}

/**
 * When neither id has a person, the new person's UUID comes from the target, unless only the
 * source was used without person processing: then from the source, so the events already
 * attributed to that id's derived UUID stay with the person.
 */
const firstIdOfNewPerson = (tables: PersonTables, request: MergeRequest): [string, string] => {
  const personless = (id: string): boolean => tables.distinctId(id)?.person_id === null
  return !personless(request.target) && personless(request.source)
    ? [request.source, request.target]
    : [request.target, request.source]
}

const moveAliasFirst = (tables: PersonTables, alias: string): void => {
  const person = personOf(tables, alias)
  if (!person) return
  const moved = moveDistinctIdFirst(tables, person, alias)
  if (moved !== person) tables.putPerson(moved)
}

const joinPersons = (
  tables: PersonTables, request: MergeRequest, event: NormalisedEvent, operations: PropertyOperations,
): MergeOutcome => {
  const source = personOf(tables, request.source)
  const target = personOf(tables, request.target)
  if (!source && !target) {
    createPerson(tables, firstIdOfNewPerson(tables, request), event, operations, true)
    return 'created'
  }
  if (!source || !target) {
    // Whichever person exists keeps its identity, even when it is the source's.
    if (source) attach(tables, source, request.target)
    else attach(tables, target!, request.source)
    return 'attached'
  }
  if (source.uuid === target.uuid) return 'already_joined'
  if (!request.dangerous && source.is_identified) return 'refused_already_identified'
  mergePeople(tables, source, target)
  return 'merged'
}

/** Why a merge request joins nothing at all (one id twice, or an id PostHog refuses), or null when it may. */
export const refusalOf = (request: MergeRequest): 'same_id' | 'illegal_id' | null => {
  if (request.source === request.target) return 'same_id'
  if (isIllegalDistinctId(request.target) || isIllegalDistinctId(request.source)) return 'illegal_id'
  return null
}

/**
 * PostHog's merge of two distinct ids. Every outcome after the id checks marks the target's
 * person identified, including a refusal; the caller applies that with the event's properties.
 */
export const mergeDistinctIds = (
  tables: PersonTables, request: MergeRequest, event: NormalisedEvent, operations: PropertyOperations,
): MergeOutcome => {
  const refused = refusalOf(request)
  if (refused !== null) return refused
  const outcome = joinPersons(tables, request, event, operations)
  if (request.alias && outcome !== 'refused_already_identified') moveAliasFirst(tables, request.source)
  return outcome
}
