import type { JsonObject } from '../eventlog/port.js'
import { processPersonEvent } from './process-person.js'
import { eventKey } from '../events/record.js'
import {
  distinctIdKey, distinctIdPageKey, personKey, personVersionKey, type EventPerson, type PersonVersion, type DistinctIdPage, type DistinctIdRecord, type PersonRecord, type PersonTables,
} from './records.js'
import { capturedEvents, capturedOf, normalisedOf } from '../ingestion/captured-projection.js'
import type { DocumentRef, ProjectionView, Projector } from '../readstore/projector.js'

export const PERSONS = 'persons'
export const PERSON_DISTINCT_IDS = 'person_distinct_ids'
/** `<environmentId>:<uuid>:<page>` → a run of a person's distinct ids, in listing order. */
export const PERSON_DISTINCT_ID_PAGES = 'person_distinct_id_pages'
/** `<environmentId>` → `{last_id}`: the environment's last integer person id. */
export const PERSON_COUNTERS = 'person_counters'
/** `<environmentId>:<uuid>:<version>` → a person's properties at that version, kept after merges. */
export const PERSON_VERSIONS = 'person_versions'
/** `<environmentId>:<event uuid>` → the person an analytics event belonged to when it was processed, and its version then. */
export const EVENT_PERSONS = 'event_persons'

const tablesOf = (view: ProjectionView, environmentId: number): PersonTables => ({
  environmentId,
  distinctId: (distinctId) => view.get<DistinctIdRecord>(PERSON_DISTINCT_IDS, distinctIdKey(environmentId, distinctId)),
  person: (uuid) => view.get<PersonRecord>(PERSONS, personKey(environmentId, uuid)),
  putDistinctId: (record) => view.put(PERSON_DISTINCT_IDS, distinctIdKey(environmentId, record.distinct_id), record),
  putPerson: (record) => {
    view.put(PERSONS, personKey(environmentId, record.uuid), record)
    // A person's properties change only with its version, so each version's snapshot is written once in content.
    view.put(PERSON_VERSIONS, personVersionKey(environmentId, record.uuid, record.version), {
      environment_id: environmentId, person_id: record.uuid, version: record.version, properties: record.properties,
    } satisfies PersonVersion)
  },
  deletePerson: (uuid) => view.delete(PERSONS, personKey(environmentId, uuid)),
  page: (uuid, page) => view.get<DistinctIdPage>(PERSON_DISTINCT_ID_PAGES, distinctIdPageKey(environmentId, uuid, page)),
  putPage: (uuid, page, record) => {
    const id = distinctIdPageKey(environmentId, uuid, page)
    if (record) view.put(PERSON_DISTINCT_ID_PAGES, id, record)
    else view.delete(PERSON_DISTINCT_ID_PAGES, id)
  },
  nextPersonId: () => {
    const id = String(environmentId)
    const last = Number(view.get(PERSON_COUNTERS, id)?.['last_id'] ?? 0) + 1
    view.put(PERSON_COUNTERS, id, { environment_id: environmentId, last_id: last })
    return last
  },
})

/** The other side of a merge a captured event asks for, if any: the id whose person may move. */
export const mergeSourceOf = (properties: JsonObject, event: string): string | null => {
  if ((event === '$create_alias' || event === '$merge_dangerously') && properties['alias']) return String(properties['alias'])
  if (event === '$identify' && Object.hasOwn(properties, '$anon_distinct_id')) return String(properties['$anon_distinct_id'])
  return null
}

/**
 * The page documents of a person's distinct ids an event may read: the first and last (an id
 * attached or moved to the front), the one holding the id itself, and every page of a merge's
 * source person. Page 0 is in the person.
 */
function* pagesOf(environmentId: number, person: PersonRecord, mapping: DistinctIdRecord, all: boolean): Generator<DocumentRef> {
  const pages = new Set([person.first_page, person.last_page, ...(mapping.page === undefined ? [] : [mapping.page])])
  if (all) for (let page = person.first_page; page <= person.last_page; page++) pages.add(page)
  pages.delete(0)
  for (const page of pages) yield [PERSON_DISTINCT_ID_PAGES, distinctIdPageKey(environmentId, person.uuid, page)]
}

/** Persons and the distinct-id mapping: PostHog's person processing of every captured event. */
export const persons: Projector = {
  name: 'persons',
  ownFile: true,
  threadWeight: 10,
  version: 3,
  collections: [PERSONS, PERSON_DISTINCT_IDS, PERSON_DISTINCT_ID_PAGES, PERSON_COUNTERS, PERSON_VERSIONS, EVENT_PERSONS],
  writeOnly: [PERSON_VERSIONS, EVENT_PERSONS],
  ...capturedEvents,
  indexes: {
    [PERSONS]: [['environment_id', 'created_at'], ['environment_id', 'id'], ['environment_id', 'properties.email']],
  },
  *prefetch(event, peek) {
    const { environmentId, events } = capturedOf(event)
    const refs: DocumentRef[] = [[PERSON_COUNTERS, String(environmentId)]]
    for (const captured of events) {
      const source = mergeSourceOf(captured.properties ?? {}, captured.event)
      for (const distinctId of source === null ? [String(captured.distinct_id)] : [String(captured.distinct_id), source]) {
        const mappingId = distinctIdKey(environmentId, distinctId)
        refs.push([PERSON_DISTINCT_IDS, mappingId])
        const mapping = peek(PERSON_DISTINCT_IDS, mappingId) as DistinctIdRecord | null | undefined
        if (!mapping?.person_id) continue
        const personId = personKey(environmentId, mapping.person_id)
        refs.push([PERSONS, personId])
        const person = peek(PERSONS, personId) as PersonRecord | null | undefined
        if (source !== null && person) refs.push(...pagesOf(environmentId, person, mapping, distinctId === source))
      }
    }
    yield* refs
  },
  apply(view, event) {
    const { environmentId, events } = normalisedOf(event, view)
    const tables = tablesOf(view, environmentId)
    for (const normalised of events) {
      processPersonEvent(tables, normalised)
      const personId = tables.distinctId(normalised.distinctId)?.person_id
      const person = personId ? tables.person(personId) : null
      if (!person) continue
      view.put(EVENT_PERSONS, eventKey(environmentId, normalised.uuid), {
        environment_id: environmentId, person_id: person.uuid, version: person.version,
      } satisfies EventPerson)
    }
  },
}
