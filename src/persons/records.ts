import type { JsonObject } from '../eventlog/port.js'

/** A person: `persons` document `<environmentId>:<uuid>`. */
export interface PersonRecord extends JsonObject {
  /** PostHog's integer person id, counted per environment. */
  id: number
  uuid: string
  environment_id: number
  properties: JsonObject
  /** In the order PostHog lists them: as attached, an alias moved to the front. */
  distinct_ids: string[]
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
}

/** One environment's persons as person processing reads and writes them, synchronously. */
export interface PersonTables {
  readonly environmentId: number
  distinctId(distinctId: string): DistinctIdRecord | null
  person(uuid: string): PersonRecord | null
  putDistinctId(record: DistinctIdRecord): void
  putPerson(record: PersonRecord): void
  deletePerson(uuid: string): void
  /** The next integer person id of the environment. */
  nextPersonId(): number
}

export const personKey = (environmentId: number, uuid: string): string => `${environmentId}:${uuid}`
export const distinctIdKey = (environmentId: number, distinctId: string): string => `${environmentId}:${distinctId}`
