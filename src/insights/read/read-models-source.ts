import type { JsonObject } from '../../eventlog/port.js'
import type { EventRecord } from '../../events/record.js'
import { personUuid } from '../../persons/person-uuid.js'
import { distinctIdKey, eventPersonKey, personKey, personVersionKey, type DistinctIdRecord, type PersonRecord } from '../../persons/records.js'
import type { ReadModels } from '../../readstore/read-models.js'
import { distinctIdPagesOf, distinctIdsFrom } from '../../persons/read.js'
import type { EventScan, QueryEvent, QueryGroup, QueryPerson, QuerySource } from '../engine/data.js'

/**
 * Whose properties a query's persons have: as they were when each event happened (PostHog's
 * `person_id_override_properties_on_events`, its default), or as they are now
 * (`person_id_override_properties_joined`). Either way an event belongs to the person its
 * distinct id belongs to now, merges included.
 */
export type PersonPropertiesMode = 'at_event' | 'current'

/** What a query reads of the person behind each event, besides who it is. */
export interface PersonReads {
  /** The properties, in this mode; null when the query reads no person property. */
  readonly properties: PersonPropertiesMode | null
  /** When the person was created (lifecycle's "new"). */
  readonly createdAt: boolean
}

/** Events read a page at a time; each page's persons are read together. */
const PAGE = 2000
/**
 * Events read without their properties are a few short columns each, so they come in larger pages:
 * fewer statements, and each page's distinct ids looked up together, nearer one another in the index.
 */
const PAGE_WITHOUT_PROPERTIES = 10_000
/** What a scan that needs no event properties reads of each event: the store may answer from its columns. */
const WITHOUT_PROPERTIES = ['uuid', 'event', 'timestamp', 'distinct_id']
/** What a query that reads nothing of persons but who they are reads of a distinct id's mapping. */
const PERSON_ID = ['person_id']
/** The properties of an event read without them, and of a person a query does not read: one object for every row. */
const NONE: JsonObject = Object.freeze({})

interface PersonNow {
  readonly id: string
  /** Null when the query does not read it. */
  readonly createdAt: number | null
  readonly properties: JsonObject
}

/**
 * A query's events, read from the read models of one environment: the events in timestamp order
 * (the store bounds the time and the names), each joined with the person its distinct id belongs
 * to now and the person properties the mode asks for. What a query reads of persons is kept for
 * that query only.
 */
export class ReadModelsSource implements QuerySource {
  private readonly now = new Map<string, PersonNow | null>()
  private readonly versions = new Map<string, JsonObject | null>()

  private readonly mode: PersonPropertiesMode | null

  /**
   * Persons are read as far as `reads` asks: a query that reads neither their properties nor
   * their creation reads only which person each distinct id belongs to, and its events carry the
   * event's own timestamp as `personCreatedAt`. `signal` stops a scan between pages, when the
   * query is cancelled.
   */
  constructor(
    private readonly models: ReadModels, private readonly environmentId: number, private readonly reads: PersonReads,
    private readonly signal?: AbortSignal,
  ) {
    this.mode = reads.properties
  }

  async *scan(scan: EventScan): AsyncIterable<readonly QueryEvent[]> {
    const timestamp = { ...(scan.from === null ? {} : { gte: new Date(scan.from).toISOString() }), lte: new Date(scan.to).toISOString() }
    const pages = this.models.pages('events', {
      where: { environment_id: this.environmentId },
      range: { timestamp },
      ...(scan.events === null ? {} : { oneOf: { event: [...scan.events] } }),
      orderBy: [['timestamp', 'asc'], ['uuid', 'asc']],
      ...(scan.properties === false ? { fields: WITHOUT_PROPERTIES } : {}),
    }, scan.properties === false ? PAGE_WITHOUT_PROPERTIES : PAGE)
    for await (const page of pages) {
      this.signal?.throwIfAborted()
      yield await this.joined(page)
    }
  }

  async earliestTimestamp(): Promise<number | null> {
    const [first] = await this.models.find('events', {
      where: { environment_id: this.environmentId }, orderBy: [['timestamp', 'asc']], limit: 1, fields: ['timestamp'],
    })
    return first ? Date.parse(first.timestamp) : null
  }

  async groups(groupTypeIndex: number): Promise<ReadonlyMap<string, QueryGroup>> {
    const found = new Map<string, QueryGroup>()
    for await (const page of this.models.pages('groups', { where: { environment_id: this.environmentId, group_type_index: groupTypeIndex }, orderBy: [['group_key', 'asc']] })) {
      for (const group of page) found.set(group.group_key, { properties: group.group_properties, createdAt: Date.parse(group.created_at) })
    }
    return found
  }

  /** Persons by uuid, as they are now, with their distinct ids in listing order; ids of no person are left out. */
  async persons(ids: readonly string[]): Promise<ReadonlyMap<string, QueryPerson>> {
    const found = await this.models.getMany('persons', [...new Set(ids)].map((id) => personKey(this.environmentId, id)))
    const persons = new Map<string, QueryPerson>()
    for (const person of found.values()) {
      persons.set(person.uuid, {
        id: person.uuid,
        distinctIds: distinctIdsFrom(person, await distinctIdPagesOf(this.models, person)),
        properties: person.properties,
        createdAt: Date.parse(person.created_at),
        isIdentified: person.is_identified,
      })
    }
    return persons
  }

  /**
   * Stored events with their persons, as a scan gives them: what live queries are fed with, for
   * events they meet in the log rather than in a scan.
   */
  rowsOf(records: readonly EventRecord[]): Promise<QueryEvent[]> {
    return this.joined(records)
  }

  /** A page of events with their persons, reading only what earlier pages did not. */
  private async joined(page: readonly EventRecord[]): Promise<QueryEvent[]> {
    await this.loadPersonsNow(page.map((event) => event.distinct_id))
    const links = this.mode === 'at_event'
      ? await this.models.getMany('event_persons', page.map((event) => eventPersonKey(this.environmentId, event.uuid, event.distinct_id)))
      : new Map()
    if (this.mode === 'at_event') await this.loadVersions([...links.values()].map((link) => personVersionKey(this.environmentId, link.person_id, link.version)))
    return page.map((event) => {
      const person = this.now.get(event.distinct_id) ?? null
      const timestamp = Date.parse(event.timestamp)
      const link = this.mode === 'at_event' ? links.get(eventPersonKey(this.environmentId, event.uuid, event.distinct_id)) : undefined
      const then = link ? this.versions.get(personVersionKey(this.environmentId, link.person_id, link.version)) : undefined
      return {
        uuid: event.uuid,
        event: event.event,
        timestamp,
        distinctId: event.distinct_id,
        // A distinct id with no person (personless events) is an actor of its own, under PostHog's id for it.
        personId: person?.id ?? personUuid(this.environmentId, event.distinct_id),
        personCreatedAt: person?.createdAt ?? timestamp,
        // Absent when the scan reads no properties.
        properties: event.properties ?? NONE,
        // An event the persons projection has not reached yet reads the person as it is now.
        personProperties: this.mode === null ? NONE : then ?? person?.properties ?? NONE,
        elementsChain: event.elements_chain ?? '',
      }
    })
  }

  private async loadPersonsNow(distinctIds: readonly string[]): Promise<void> {
    const missing = new Set<string>()
    for (const id of distinctIds) if (!this.now.has(id)) missing.add(id)
    if (missing.size === 0) return
    const keys = [...missing].map((id) => distinctIdKey(this.environmentId, id))
    if (this.mode === null && !this.reads.createdAt) {
      // A mapping names a person that exists: a merge moves the mappings of the person it removes in the same commit.
      const mappings = await this.models.getMany('person_distinct_ids', keys, PERSON_ID)
      let i = 0
      for (const id of missing) {
        const uuid = mappings.get(keys[i++]!)?.person_id
        this.now.set(id, uuid ? { id: uuid, createdAt: null, properties: NONE } : null)
      }
      return
    }
    const mappings = await this.models.getMany('person_distinct_ids', keys)
    const uuids = [...new Set([...mappings.values()].flatMap((mapping: DistinctIdRecord) => (mapping.person_id ? [mapping.person_id] : [])))]
    const persons = await this.models.getMany('persons', uuids.map((uuid) => personKey(this.environmentId, uuid)))
    let i = 0
    for (const id of missing) {
      const uuid = mappings.get(keys[i++]!)?.person_id
      const person: PersonRecord | undefined = uuid ? persons.get(personKey(this.environmentId, uuid)) : undefined
      this.now.set(id, person ? { id: person.uuid, createdAt: Date.parse(person.created_at), properties: person.properties } : null)
    }
  }

  private async loadVersions(keys: readonly string[]): Promise<void> {
    const missing = [...new Set(keys)].filter((key) => !this.versions.has(key))
    if (missing.length === 0) return
    const found = await this.models.getMany('person_versions', missing)
    for (const key of missing) this.versions.set(key, found.get(key)?.properties ?? null)
  }
}
