import type { QueryGroup, QueryPerson } from '../engine/data.js'
import { QueryRefused } from '../errors.js'
import { bareColumn, jsonTime } from '../events-query/event-columns.js'
import { propertyText } from '../properties/value-tests.js'
import { openZone } from '../time/zone.js'
import type { ActorFacts, Drill } from './drill.js'
import { ownValue } from '../../kernel/own-value.js'

/** A column of an actors query. */
export type ActorColumn =
  | { readonly kind: SimpleKind }
  | { readonly kind: 'property'; readonly key: string }

type SimpleKind = 'actor' | 'id' | 'delete' | 'created_at' | 'event_count' | 'event_distinct_ids' | 'matched_recordings' | 'appearances'

/** One actor with what the columns read: its facts, and its person or group (undefined when the store has none). */
export interface ActorRow {
  readonly id: string
  readonly facts: ActorFacts
  readonly person?: QueryPerson | undefined
  readonly group?: QueryGroup | undefined
}

const UTC = openZone('UTC')
const PROPERTY = /^(?:person\.)?properties\.(.+)$/

const NAMED: Readonly<Record<string, SimpleKind>> = {
  person: 'actor', actor: 'actor', group: 'actor', id: 'id', actor_id: 'id', person_id: 'id', key: 'id', 'person.$delete': 'delete',
  created_at: 'created_at', event_count: 'event_count', event_distinct_ids: 'event_distinct_ids', matched_recordings: 'matched_recordings', appearances: 'appearances',
}

/** Reads one column or order expression, refusing what this data point cannot answer. */
export const actorColumn = (text: string, drill: Drill, attr: string): ActorColumn => {
  const bare = bareColumn(text)
  const property = PROPERTY.exec(bare)
  if (property) return { kind: 'property', key: property[1]!.replace(/^`(.*)`$/, '$1') }
  const kind = ownValue(NAMED, bare)
  if (kind === undefined) throw new QueryRefused(`Actors queries cannot select ${JSON.stringify(text)}: Hedgelog knows the actor, its id, created_at, event_count, event_distinct_ids, appearances and properties.<name>.`, 'unsupported_query', attr)
  const known = kind === 'event_count' ? drill.provides.eventCount : kind === 'event_distinct_ids' ? drill.provides.distinctIds : kind === 'appearances' ? drill.provides.appearances : true
  if (known !== true) throw new QueryRefused(`${bare} is not known for this insight's actors.`, 'unsupported_query', attr)
  return { kind }
}

/** PostHog's default columns: the person, its id and a delete marker; the group alone. */
export const defaultColumns = (drill: Drill): string[] =>
  drill.groupTypeIndex !== null ? ['group'] : drill.provides.distinctIds ? ['person', 'id', 'person.$delete', 'event_distinct_ids'] : ['person', 'id', 'person.$delete']

const propertiesOf = (row: ActorRow): Record<string, unknown> => row.person?.properties ?? row.group?.properties ?? {}

const createdAtOf = (row: ActorRow): number | null => row.person?.createdAt ?? row.group?.createdAt ?? null

/** The actor object: the person as PostHog's person strategy returns it, or the group. */
export const actorObject = (row: ActorRow, groupTypeIndex: number | null): Record<string, unknown> => {
  if (groupTypeIndex !== null) {
    if (!row.group) return { id: row.id }
    const createdAt = jsonTime(row.group.createdAt, UTC)
    return { id: row.id, type: 'group', properties: row.group.properties, group_key: row.id, group_type_index: groupTypeIndex, created_at: createdAt, group_properties: row.group.properties }
  }
  if (!row.person) return { id: row.id }
  const { person } = row
  return { id: person.id, properties: person.properties, is_identified: person.isIdentified, created_at: jsonTime(person.createdAt, UTC), distinct_ids: person.distinctIds }
}

/** One output cell. */
export const actorCell = (column: ActorColumn, row: ActorRow, groupTypeIndex: number | null): unknown => {
  switch (column.kind) {
    case 'actor': return actorObject(row, groupTypeIndex)
    case 'id': return row.id
    case 'delete': return 1
    case 'created_at': {
      const at = createdAtOf(row)
      return at === null ? null : jsonTime(at, UTC)
    }
    case 'event_count': return row.facts.eventCount
    case 'event_distinct_ids': return [...row.facts.distinctIds]
    case 'matched_recordings': return []
    case 'appearances': return row.facts.appearances ?? []
    case 'property': return propertyText(propertiesOf(row)[column.key])
  }
}

/** What a column sorts by: the actor by its email (persons) or name (groups), as PostHog sorts them. */
export const sortValue = (column: ActorColumn, row: ActorRow, groupTypeIndex: number | null): string | number | null => {
  switch (column.kind) {
    case 'actor': return propertyText(propertiesOf(row)[groupTypeIndex === null ? 'email' : 'name'])
    case 'id': return row.id
    case 'created_at': return createdAtOf(row)
    case 'event_count': return row.facts.eventCount
    case 'property': return propertyText(propertiesOf(row)[column.key])
    case 'appearances': return row.facts.appearances?.length ?? 0
    default: return null
  }
}

export const typeOfColumn = (column: ActorColumn): string => {
  switch (column.kind) {
    case 'actor': case 'id': return 'String'
    case 'delete': return 'UInt8'
    case 'created_at': return "DateTime64(6, 'UTC')"
    case 'event_count': return 'UInt64'
    case 'event_distinct_ids': return 'Array(String)'
    case 'matched_recordings': return 'Array(Tuple(String, Array(Tuple(DateTime64(6, \'UTC\'), UUID, String, String))))'
    case 'appearances': return 'Array(Int64)'
    case 'property': return 'Nullable(String)'
  }
}
