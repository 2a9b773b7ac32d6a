import type { JsonObject } from '../../eventlog/port.js'
import type { GroupTypeEntry, QueryEvent, QueryGroup } from '../engine/data.js'

/** One event with what filters, breakdowns and maths may read besides its own fields. */
export interface RowContext {
  readonly event: QueryEvent
  /** Properties of the event's session, or null when it has none. */
  readonly session: JsonObject | null
  /** The event's group key for a type index (`$group_<index>`), or null. */
  groupKey(index: number): string | null
  /** Properties of the event's group of a type, or null. */
  groupProperties(index: number): JsonObject | null
}

/** What rows may read: groups by type index and key, session properties by session id. */
export interface RowLookups {
  readonly groupTypes: readonly GroupTypeEntry[]
  readonly groups: ReadonlyMap<number, ReadonlyMap<string, QueryGroup>>
  readonly sessions: ReadonlyMap<string, JsonObject> | null
}

const keyText = (value: unknown): string | null =>
  typeof value === 'string' ? (value === '' ? null : value) : typeof value === 'number' ? String(value) : null

/** The `$session_id` of an event, or null. */
export const sessionIdOf = (event: QueryEvent): string | null => keyText(event.properties['$session_id'])

/**
 * The group key an event carries for a type: its `$group_<index>` property, else its `$groups`
 * entry for the type mapped to that index.
 */
export const groupKeyOf = (event: QueryEvent, index: number, groupTypes: readonly GroupTypeEntry[]): string | null => {
  const direct = keyText(event.properties[`$group_${index}`])
  if (direct !== null) return direct
  const groups = event.properties['$groups']
  if (typeof groups !== 'object' || groups === null || Array.isArray(groups)) return null
  const type = groupTypes.find((entry) => entry.group_type_index === index)?.group_type
  return type === undefined ? null : keyText((groups as JsonObject)[type])
}

/** One object per row, its lookups on the prototype: a query makes one for every event it reads. */
class Row implements RowContext {
  readonly session: JsonObject | null

  constructor(readonly event: QueryEvent, private readonly lookups: RowLookups) {
    const sessionId = lookups.sessions === null ? null : sessionIdOf(event)
    this.session = sessionId === null ? null : lookups.sessions?.get(sessionId) ?? null
  }

  groupKey(index: number): string | null {
    return groupKeyOf(this.event, index, this.lookups.groupTypes)
  }

  groupProperties(index: number): JsonObject | null {
    const key = groupKeyOf(this.event, index, this.lookups.groupTypes)
    return key === null ? null : this.lookups.groups.get(index)?.get(key)?.properties ?? null
  }
}

export const rowContext = (event: QueryEvent, lookups: RowLookups): RowContext => new Row(event, lookups)
