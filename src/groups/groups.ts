import { type JsonObject, isJsonObject } from '../eventlog/port.js'
import { jsonEqual, sanitise } from '../persons/json.js'
import type { NormalisedEvent } from '../persons/normalise.js'

export const MAX_GROUP_TYPES = 5

export interface GroupType extends JsonObject {
  group_type: string
  group_type_index: number
  created_at: string
}

/** `group_type_mappings` document `<environmentId>`: the environment's group types, by index. */
export interface GroupTypeMapping extends JsonObject {
  environment_id: number
  types: GroupType[]
}

/** `groups` document `<environmentId>:<groupTypeIndex>:<groupKey>`. */
export interface GroupRecord extends JsonObject {
  environment_id: number
  group_type_index: number
  group_key: string
  group_properties: JsonObject
  created_at: string
  version: number
}

export const groupKey = (environmentId: number, groupTypeIndex: number, key: string): string =>
  `${environmentId}:${groupTypeIndex}:${key}`

export const emptyMapping = (environmentId: number): GroupTypeMapping => ({ environment_id: environmentId, types: [] })

export interface Resolved {
  readonly mapping: GroupTypeMapping
  /** Null for a sixth type: its entries are ignored. */
  readonly index: number | null
}

/**
 * The index of a group type, creating it on first sight with the lowest unused index (at most
 * five types). A type seen on an event older than its creation time takes that time.
 */
export const resolveGroupType = (mapping: GroupTypeMapping, groupType: string, timestamp: string): Resolved => {
  const known = mapping.types.find((type) => type.group_type === groupType)
  if (known) {
    if (timestamp >= known.created_at) return { mapping, index: known.group_type_index }
    const types = mapping.types.map((type) => (type === known ? { ...type, created_at: timestamp } : type))
    return { mapping: { ...mapping, types }, index: known.group_type_index }
  }
  if (mapping.types.length >= MAX_GROUP_TYPES) return { mapping, index: null }
  const used = new Set(mapping.types.map((type) => type.group_type_index))
  let index = 0
  while (used.has(index)) index++
  const types = [...mapping.types, { group_type: groupType, group_type_index: index, created_at: timestamp }]
    .sort((a, b) => a.group_type_index - b.group_type_index)
  return { mapping: { ...mapping, types }, index }
}

/** The `$group_<index>` properties an event's `$groups` stands for, under a known mapping. */
export const groupIndexProperties = (groups: unknown, mapping: GroupTypeMapping): JsonObject => {
  const out: JsonObject = {}
  if (!isJsonObject(groups)) return out
  for (const [type, key] of Object.entries(groups)) {
    const index = mapping.types.find((known) => known.group_type === type)?.group_type_index
    if (index !== undefined && key !== null && key !== undefined) out[`$group_${index}`] = key
  }
  return out
}

export interface GroupIdentify {
  readonly groupType: string
  readonly groupKey: string
  readonly groupSet: JsonObject
}

/** What a `$groupidentify` asks for, or null when it names no type or key. */
export const groupIdentifyOf = (event: NormalisedEvent): GroupIdentify | null => {
  if (event.event !== '$groupidentify') return null
  const { properties } = event
  const type = properties['$group_type']
  const key = properties['$group_key']
  if (type === undefined || type === null || type === '' || key === undefined || key === null || key === '') return null
  const groupSet = properties['$group_set']
  return { groupType: String(type), groupKey: sanitise(String(key)), groupSet: isJsonObject(groupSet) ? groupSet : {} }
}

/**
 * Upserts a group: `$group_set` keys overwrite, others stay (no set-once, no unset); the
 * creation time is the earliest event seen. Returns `current` itself when nothing changes.
 */
export const upsertGroup = (
  current: GroupRecord | null, environmentId: number, index: number, identify: GroupIdentify, timestamp: string,
): GroupRecord => {
  if (!current) {
    return {
      environment_id: environmentId, group_type_index: index, group_key: identify.groupKey,
      group_properties: { ...identify.groupSet }, created_at: timestamp, version: 0,
    }
  }
  const changed = Object.entries(identify.groupSet)
    .some(([key, value]) => !Object.hasOwn(current.group_properties, key) || !jsonEqual(current.group_properties[key], value))
  const earlier = timestamp < current.created_at
  if (!changed && !earlier) return current
  return {
    ...current,
    group_properties: changed ? { ...current.group_properties, ...identify.groupSet } : current.group_properties,
    created_at: earlier ? timestamp : current.created_at,
    version: current.version + 1,
  }
}

export interface GroupEffects {
  readonly mapping: GroupTypeMapping
  readonly identify: { readonly index: number; readonly request: GroupIdentify } | null
}

/**
 * Group processing of one event, person processing enabled: the types in `$groups` are mapped,
 * then a `$groupidentify` resolves its own type for the upsert.
 */
export const groupEffectsOf = (event: NormalisedEvent, mapping: GroupTypeMapping): GroupEffects => {
  let current = mapping
  const groups = event.properties['$groups']
  if (isJsonObject(groups)) {
    for (const [type, key] of Object.entries(groups)) {
      if (key !== null && key !== undefined) current = resolveGroupType(current, type, event.timestamp).mapping
    }
  }
  const request = groupIdentifyOf(event)
  if (!request) return { mapping: current, identify: null }
  const resolved = resolveGroupType(current, request.groupType, event.timestamp)
  return { mapping: resolved.mapping, identify: resolved.index === null ? null : { index: resolved.index, request } }
}

/** One environment's groups as group processing reads and writes them, synchronously. */
export interface GroupTables {
  readonly environmentId: number
  group(groupTypeIndex: number, key: string): GroupRecord | null
  putGroup(record: GroupRecord): void
  /** Whether these tables hold the group (a partition holds only its own); all of them when absent. */
  holds?(groupTypeIndex: number, key: string): boolean
}

/**
 * Group processing of one normalised event: the types its `$groups` name are mapped, and a
 * `$groupidentify` creates or updates its group. Events without person processing, or naming no
 * group, change nothing. The mapping afterwards (the one given when nothing changed).
 */
export const processGroupEvent = (tables: GroupTables, mapping: GroupTypeMapping, event: NormalisedEvent): GroupTypeMapping => {
  const groupsSeen = event.event === '$groupidentify' || event.properties['$groups'] !== undefined
  if (!groupsSeen || !event.processPerson) return mapping
  const effects = groupEffectsOf(event, mapping)
  if (!effects.identify) return effects.mapping
  const { index, request } = effects.identify
  if (tables.holds && !tables.holds(index, request.groupKey)) return effects.mapping
  const current = tables.group(index, request.groupKey)
  const next = upsertGroup(current, tables.environmentId, index, request, event.timestamp)
  if (next !== current) tables.putGroup(next)
  return effects.mapping
}

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    groups: GroupRecord
    group_type_mappings: GroupTypeMapping
  }
}
