import { distinctIdsOf } from '../../persons/distinct-id-pages.js'
import type { DistinctIdPage, DistinctIdRecord, PersonRecord, PersonTables } from '../../persons/records.js'
import type { QueryPerson } from '../engine/data.js'

/**
 * One environment's persons held in maps: the tables person processing reads and writes, so
 * that the same pure code the persons projection runs builds them here, without a store.
 */
export class MemoryPersonTables implements PersonTables {
  private readonly mappings = new Map<string, DistinctIdRecord>()
  private readonly records = new Map<string, PersonRecord>()
  private readonly pages = new Map<string, DistinctIdPage>()
  private lastId = 0

  constructor(readonly environmentId: number) {}

  distinctId(distinctId: string): DistinctIdRecord | null {
    return this.mappings.get(distinctId) ?? null
  }

  person(uuid: string): PersonRecord | null {
    return this.records.get(uuid) ?? null
  }

  putDistinctId(record: DistinctIdRecord): void {
    this.mappings.set(record.distinct_id, record)
  }

  putPerson(record: PersonRecord): void {
    this.records.set(record.uuid, record)
  }

  deletePerson(uuid: string): void {
    this.records.delete(uuid)
  }

  page(uuid: string, page: number): DistinctIdPage | null {
    return this.pages.get(`${uuid}:${page}`) ?? null
  }

  putPage(uuid: string, page: number, record: DistinctIdPage | null): void {
    if (record) this.pages.set(`${uuid}:${page}`, record)
    else this.pages.delete(`${uuid}:${page}`)
  }

  nextPersonId(): number {
    return ++this.lastId
  }

  /** The person a distinct id belongs to, if it has one. */
  personOf(distinctId: string): PersonRecord | null {
    const uuid = this.mappings.get(distinctId)?.person_id
    return uuid ? this.records.get(uuid) ?? null : null
  }

  /** The uuid of the person a distinct id's mapping names, if any. */
  personIdOf(distinctId: string): string | null {
    return this.mappings.get(distinctId)?.person_id ?? null
  }

  /** Every person, as queries show them: distinct ids in listing order. */
  queryPersons(): Map<string, QueryPerson> {
    const persons = new Map<string, QueryPerson>()
    for (const person of this.records.values()) {
      persons.set(person.uuid, {
        id: person.uuid,
        distinctIds: distinctIdsOf(this, person),
        properties: person.properties,
        createdAt: Date.parse(person.created_at),
        isIdentified: person.is_identified,
      })
    }
    return persons
  }
}
