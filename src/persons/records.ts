import type { JsonObject } from '../eventlog/port.js'

/** A person: `persons` document `<environmentId>:<uuid>`. */
export interface PersonRecord extends JsonObject {
  /** PostHog's integer person id, counted per environment. */
  id: number
  uuid: string
  environment_id: number
  properties: JsonObject
  /**
   * Its distinct ids, in pages numbered `first_page` to `last_page`: page 0 here, the others in
   * `person_distinct_id_pages` documents (a missing page is empty). Read in that order they are in
   * the order PostHog lists them: as attached, an alias moved to the front.
   */
  distinct_ids: string[]
  first_page: number
  last_page: number
  is_identified: boolean
  created_at: string
  version: number
}

/**
 * `person_distinct_ids` document `<environmentId>:<distinctId>`. `person_id` is the person's UUID,
 * or null for a distinct id seen only on events without person processing ("personless").
 */
export interface DistinctIdRecord extends JsonObject {
  environment_id: number
  distinct_id: string
  person_id: string | null
  /** The page of the person's distinct ids that holds this one (absent when `person_id` is null). */
  page?: number
}

/** `person_distinct_id_pages` document `<environmentId>:<uuid>:<page>`: a run of a person's distinct ids. */
export interface DistinctIdPage extends JsonObject {
  environment_id: number
  person_id: string
  ids: string[]
}

/** `person_versions` document `<environmentId>:<uuid>:<version>`: a person's properties at one version. */
export interface PersonVersion extends JsonObject {
  environment_id: number
  person_id: string
  version: number
  properties: JsonObject
}

/**
 * `event_persons` document `<environmentId>:<event uuid>:<distinct id>`: the person an analytics event belonged
 * to once person processing had handled it, and that person's version then. Absent for an event
 * whose distinct id had no person (personless events).
 */
export interface EventPerson extends JsonObject {
  environment_id: number
  person_id: string
  version: number
}

/** One environment's persons as person processing reads and writes them, synchronously. */
export interface PersonTables {
  readonly environmentId: number
  distinctId(distinctId: string): DistinctIdRecord | null
  person(uuid: string): PersonRecord | null
  putDistinctId(record: DistinctIdRecord): void
  putPerson(record: PersonRecord): void
  deletePerson(uuid: string): void
  /** A page of a person's distinct ids; null when it is empty. */
  page(uuid: string, page: number): DistinctIdPage | null
  /** Writes a page of a person's distinct ids; null removes it. */
  putPage(uuid: string, page: number, record: DistinctIdPage | null): void
  /** The next integer person id of the environment. */
  nextPersonId(): number
}

export const personKey = (environmentId: number, uuid: string): string => `${environmentId}:${uuid}`
export const personVersionKey = (environmentId: number, uuid: string, version: number): string => `${environmentId}:${uuid}:${version}`
/**
 * An event's person is kept under its UUID and distinct id: two events sent under one UUID by
 * different distinct ids may belong to persons of different partitions, and the events read
 * model keeps the later one, whose distinct id names its person here.
 */
export const eventPersonKey = (environmentId: number, uuid: string, distinctId: string): string => `${environmentId}:${uuid}:${distinctId}`
export const distinctIdKey = (environmentId: number, distinctId: string): string => `${environmentId}:${distinctId}`
export const distinctIdPageKey = (environmentId: number, uuid: string, page: number): string => `${environmentId}:${uuid}:${page}`

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    persons: PersonRecord
    person_distinct_ids: DistinctIdRecord
    person_distinct_id_pages: DistinctIdPage
    /** `<environmentId>` → the environment's last integer person id. */
    person_counters: JsonObject
    person_versions: PersonVersion
    event_persons: EventPerson
  }
}
