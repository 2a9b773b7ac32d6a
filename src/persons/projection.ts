import { positionToString, type JsonObject } from '../eventlog/port.js'
import { processPersonEvent } from './process-person.js'
import {
  distinctIdKey, distinctIdPageKey, eventPersonKey, personKey, personVersionKey, type EventPerson, type PersonVersion, type DistinctIdPage, type DistinctIdRecord, type PersonRecord, type PersonTables,
} from './records.js'
import { capturedEvents, capturedOf, normalisedOf } from '../ingestion/captured-projection.js'
import type { DocumentRef, ProjectionView, Projector } from '../readstore/projector.js'
import { mergeRequestOf, refusalOf } from './identity.js'
import { LONGEST_PATH, PERSON_LINKS, homeKeyOf, joinLinks, linkKey, seeLink, type LinkRecord } from './links.js'

export const PERSONS = 'persons'
export const PERSON_DISTINCT_IDS = 'person_distinct_ids'
/** `<environmentId>:<uuid>:<page>` → a run of a person's distinct ids, in listing order. */
export const PERSON_DISTINCT_ID_PAGES = 'person_distinct_id_pages'
/** `<environmentId>` → `{last_id}`: the environment's last integer person id. */
export const PERSON_COUNTERS = 'person_counters'
/** In each partition of a partitioned build, for itself: `<environmentId>` → `{last_id}`, how many persons it created there. */
export const PERSON_ID_COUNTERS = 'person_id_counters'
/** `<environmentId>:<uuid>:<version>` → a person's properties at that version, kept after merges. */
export const PERSON_VERSIONS = 'person_versions'
/** `<environmentId>:<event uuid>:<distinct id>` → the person an analytics event belonged to when it was processed, and its version then. */
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
    // Partition i of n counts its own persons k = 1, 2, … and gives them the ids (k - 1) n + i + 1.
    const { index, count } = view.partition
    const counters = count > 1 ? PERSON_ID_COUNTERS : PERSON_COUNTERS
    const id = String(environmentId)
    const last = Number(view.get(counters, id)?.['last_id'] ?? 0) + 1
    view.put(counters, id, { environment_id: environmentId, last_id: last })
    return (last - 1) * count + index + 1
  },
})

/** The distinct ids a captured event uses: its own and, for a merge, the other side's. */
const idsOf = (properties: JsonObject, event: string, distinctId: string): string[] => {
  const source = mergeSourceOf(properties, event)
  return source === null ? [distinctId] : [distinctId, source]
}

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

/**
 * Adds to `refs` the link documents from `distinctId` towards its root, as far as they are
 * loaded; true when the root is loaded and this partition holds it.
 */
const linksLeadHome = (
  refs: DocumentRef[], environmentId: number, distinctId: string,
  peek: (collection: string, id: string) => JsonObject | null | undefined, owns: (key: string) => boolean,
): boolean => {
  let key = linkKey(environmentId, distinctId)
  for (let steps = 0; steps <= LONGEST_PATH; steps++) {
    refs.push([PERSON_LINKS, key])
    const record = peek(PERSON_LINKS, key) as LinkRecord | null | undefined
    if (record === undefined) return false
    if (record?.parent === undefined) return owns(key)
    key = linkKey(environmentId, record.parent)
  }
  return false
}

/** Persons and the distinct-id mapping: PostHog's person processing of every captured event. */
export const persons: Projector = {
  name: 'persons',
  ownFile: true,
  threadWeight: 10,
  version: 5,
  collections: [PERSONS, PERSON_DISTINCT_IDS, PERSON_DISTINCT_ID_PAGES, PERSON_COUNTERS, PERSON_VERSIONS, EVENT_PERSONS],
  writeOnly: [PERSON_VERSIONS, EVENT_PERSONS],
  /**
   * In partitions, by the root of each distinct id's set of possibly merged ids (`links.ts`), so
   * that a person and every event of its distinct ids are in one partition. A merge that joins
   * two sets moves one set's documents to the other's partition, which first waits for the
   * partition they come from to commit every earlier event.
   */
  partitioned: true,
  partitionState: [PERSON_LINKS, PERSON_ID_COUNTERS],
  ...capturedEvents,
  indexes: {
    [PERSONS]: [['environment_id', 'created_at'], ['environment_id', 'id'], ['environment_id', 'properties.email']],
  },
  *prefetch(event, peek, owns, partition) {
    const { environmentId, events } = capturedOf(event)
    const refs: DocumentRef[] = [[partition.count > 1 ? PERSON_ID_COUNTERS : PERSON_COUNTERS, String(environmentId)]]
    for (const captured of events) {
      const ids = idsOf(captured.properties ?? {}, captured.event, String(captured.distinct_id))
      const source = ids[1] ?? null
      if (partition.count > 1 && !ids.map((id) => linksLeadHome(refs, environmentId, id, peek, owns)).includes(true)) continue
      for (const distinctId of ids) {
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
  fold(view, event) {
    const { environmentId, events } = normalisedOf(event, view)
    const requests = events.map(mergeRequestOf)
    // The units of an import share the position of the event that committed it.
    const at = positionToString(event.position)
    // Every merge of the log event first, so the event's ids are all in the partition they end up in.
    events.forEach((normalised, i) => {
      const request = requests[i]!
      if (normalised.processPerson && request !== null && refusalOf(request) === null) joinLinks(view, environmentId, request.source, request.target, at)
    })
    events.forEach((normalised, i) => {
      seeLink(view, environmentId, normalised.distinctId)
      if (requests[i] !== null) seeLink(view, environmentId, requests[i]!.source)
    })
  },
  apply(view, event) {
    const { environmentId, events } = normalisedOf(event, view)
    const tables = tablesOf(view, environmentId)
    const whole = view.partition.count <= 1
    for (const normalised of events) {
      if (!whole && !view.owns(homeKeyOf(view, environmentId, normalised.distinctId))) continue
      processPersonEvent(tables, normalised)
      const personId = tables.distinctId(normalised.distinctId)?.person_id
      const person = personId ? tables.person(personId) : null
      if (!person) continue
      view.put(EVENT_PERSONS, eventPersonKey(environmentId, normalised.uuid, normalised.distinctId), {
        environment_id: environmentId, person_id: person.uuid, version: person.version,
      } satisfies EventPerson)
    }
  },
}
