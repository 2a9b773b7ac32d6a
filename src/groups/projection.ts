import {
  emptyMapping, groupKey, processGroupEvent, type GroupRecord, type GroupTables, type GroupTypeMapping,
} from './groups.js'
import { capturedEvents, capturedOf, normalisedOf } from '../ingestion/captured-projection.js'
import type { Projector } from '../readstore/projector.js'

export const GROUPS = 'groups'
export const GROUP_TYPE_MAPPINGS = 'group_type_mappings'

/**
 * Each partition's own copy of the group types of the environments whose type document it does
 * not hold: it folds the types from every event, as the holder does, to number its own groups.
 */
export const GROUP_TYPES_SEEN = 'group_types_seen'

/**
 * Group types per environment (indexes 0–4) and groups, from `$groups` and `$groupidentify`.
 * Built in partitions by group, and the types document by environment: every partition folds the
 * types of every event in log order, the same for all, so each numbers its groups as one runner
 * would; the partition holding the environment writes the types document, the others keep their
 * fold to themselves (`GROUP_TYPES_SEEN`).
 */
export const groups: Projector = {
  name: 'groups',
  ownFile: true,
  threadWeight: 2,
  version: 1,
  collections: [GROUPS, GROUP_TYPE_MAPPINGS],
  partitioned: true,
  partitionState: [GROUP_TYPES_SEEN],
  ...capturedEvents,
  indexes: { [GROUPS]: [['environment_id', 'group_type_index', 'created_at']] },
  *prefetch(event, peek, owns) {
    const { environmentId, events } = capturedOf(event)
    const mappingId = String(environmentId)
    const types = owns(mappingId) ? GROUP_TYPE_MAPPINGS : GROUP_TYPES_SEEN
    yield [types, mappingId]
    const mapping = peek(types, mappingId) as GroupTypeMapping | null | undefined
    for (const captured of events) {
      if (captured.event !== '$groupidentify') continue
      const type = mapping?.types.find((known) => known.group_type === String(captured.properties?.['$group_type']))
      const key = captured.properties?.['$group_key']
      if (!type || key === undefined || key === null) continue
      const id = groupKey(environmentId, type.group_type_index, String(key))
      if (owns(id)) yield [GROUPS, id]
    }
  },
  apply(view, event) {
    const { environmentId, events } = normalisedOf(event, view)
    const mappingId = String(environmentId)
    const types = view.owns(mappingId) ? GROUP_TYPE_MAPPINGS : GROUP_TYPES_SEEN
    const stored = view.get<GroupTypeMapping>(types, mappingId)
    let mapping = stored ?? emptyMapping(environmentId)
    const tables: GroupTables = {
      environmentId,
      group: (index, key) => view.get<GroupRecord>(GROUPS, groupKey(environmentId, index, key)),
      putGroup: (record) => view.put(GROUPS, groupKey(environmentId, record.group_type_index, record.group_key), record),
      holds: (index, key) => view.owns(groupKey(environmentId, index, key)),
    }
    for (const normalised of events) mapping = processGroupEvent(tables, mapping, normalised)
    if (mapping !== stored && mapping.types.length > 0) view.put(types, mappingId, mapping)
  },
}
