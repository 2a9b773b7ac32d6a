import type { JsonObject } from '../src/eventlog/port.js'
import { processPersonEvent } from '../src/persons/process-person.js'
import {
  distinctIdKey, personKey, type DistinctIdRecord, type PersonRecord, type PersonTables,
} from '../src/persons/records.js'
import { capturedEvents, capturedOf, normalisedOf } from './captured.js'
import type { DocumentRef, ProjectionView, Projector } from './projector.js'

export const PERSONS = 'persons'
export const PERSON_DISTINCT_IDS = 'person_distinct_ids'
/** `<environmentId>` → `{last_id}`: the environment's last integer person id. */
export const PERSON_COUNTERS = 'person_counters'

const tablesOf = (view: ProjectionView, environmentId: number): PersonTables => ({
  environmentId,
  distinctId: (distinctId) => view.get<DistinctIdRecord>(PERSON_DISTINCT_IDS, distinctIdKey(environmentId, distinctId)),
  person: (uuid) => view.get<PersonRecord>(PERSONS, personKey(environmentId, uuid)),
  putDistinctId: (record) => view.put(PERSON_DISTINCT_IDS, distinctIdKey(environmentId, record.distinct_id), record),
  putPerson: (record) => view.put(PERSONS, personKey(environmentId, record.uuid), record),
  deletePerson: (uuid) => view.delete(PERSONS, personKey(environmentId, uuid)),
  nextPersonId: () => {
    const id = String(environmentId)
    const last = Number(view.get(PERSON_COUNTERS, id)?.['last_id'] ?? 0) + 1
    view.put(PERSON_COUNTERS, id, { environment_id: environmentId, last_id: last })
    return last
  },
})

/** The distinct ids a captured event may read: its own, and the other side of a merge. */
const idsOf = (properties: JsonObject, event: string, distinctId: string): string[] => {
  if ((event === '$create_alias' || event === '$merge_dangerously') && properties['alias']) return [distinctId, String(properties['alias'])]
  if (event === '$identify' && Object.hasOwn(properties, '$anon_distinct_id')) return [distinctId, String(properties['$anon_distinct_id'])]
  return [distinctId]
}

/** Persons and the distinct-id mapping: PostHog's person processing of every captured event. */
export const persons: Projector = {
  name: 'persons',
  version: 1,
  collections: [PERSONS, PERSON_DISTINCT_IDS, PERSON_COUNTERS],
  ...capturedEvents,
  indexes: {
    [PERSONS]: [['environment_id', 'created_at'], ['environment_id', 'id'], ['environment_id', 'properties.email']],
  },
  *prefetch(event, peek) {
    const { environmentId, events } = capturedOf(event)
    const refs: DocumentRef[] = [[PERSON_COUNTERS, String(environmentId)]]
    for (const captured of events) {
      for (const distinctId of idsOf(captured.properties ?? {}, captured.event, String(captured.distinct_id))) {
        const mappingId = distinctIdKey(environmentId, distinctId)
        refs.push([PERSON_DISTINCT_IDS, mappingId])
        const personId = (peek(PERSON_DISTINCT_IDS, mappingId) as DistinctIdRecord | null | undefined)?.person_id
        if (personId) refs.push([PERSONS, personKey(environmentId, personId)])
      }
    }
    yield* refs
  },
  apply(view, event) {
    const { environmentId, events } = normalisedOf(event, view)
    const tables = tablesOf(view, environmentId)
    for (const normalised of events) processPersonEvent(tables, normalised)
  },
}
