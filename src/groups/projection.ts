import {
  emptyMapping, groupKey, processGroupEvent, type GroupRecord, type GroupTables, type GroupTypeMapping,
} from './groups.js'
import { capturedEvents, capturedOf, normalisedOf } from '../ingestion/captured-projection.js'
import type { Projector } from '../readstore/projector.js'

export const GROUPS = 'groups'
export const GROUP_TYPE_MAPPINGS = 'group_type_mappings'

/** Group types per environment (indexes 0–4) and groups, from `$groups` and `$groupidentify`. */
export const groups: Projector = {
  name: 'groups',
  ownFile: true,
  threadWeight: 2,
  version: 1,
  collections: [GROUPS, GROUP_TYPE_MAPPINGS],
  ...capturedEvents,
  indexes: { [GROUPS]: [['environment_id', 'group_type_index', 'created_at']] },
  *prefetch(event, peek) {
    const { environmentId, events } = capturedOf(event)
    yield [GROUP_TYPE_MAPPINGS, String(environmentId)]
    const mapping = peek(GROUP_TYPE_MAPPINGS, String(environmentId)) as GroupTypeMapping | null | undefined
    for (const captured of events) {
      if (captured.event !== '$groupidentify') continue
      const type = mapping?.types.find((known) => known.group_type === String(captured.properties?.['$group_type']))
      const key = captured.properties?.['$group_key']
      if (type && key !== undefined && key !== null) yield [GROUPS, groupKey(environmentId, type.group_type_index, String(key))]
    }
  },
  apply(view, event) {
    const { environmentId, events } = normalisedOf(event, view)
    const mappingId = String(environmentId)
    const stored = view.get<GroupTypeMapping>(GROUP_TYPE_MAPPINGS, mappingId)
    let mapping = stored ?? emptyMapping(environmentId)
    const tables: GroupTables = {
      environmentId,
      group: (index, key) => view.get<GroupRecord>(GROUPS, groupKey(environmentId, index, key)),
      putGroup: (record) => view.put(GROUPS, groupKey(environmentId, record.group_type_index, record.group_key), record),
    }
    for (const normalised of events) mapping = processGroupEvent(tables, mapping, normalised)
    if (mapping !== stored && mapping.types.length > 0) view.put(GROUP_TYPE_MAPPINGS, mappingId, mapping)
  },
}
