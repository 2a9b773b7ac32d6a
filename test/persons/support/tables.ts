import type { JsonObject } from '../../../src/eventlog/port.js'
import type { CapturedEvent } from '../../../src/ingestion/captured-event.js'
import { normaliseEvent, type NormalisedEvent } from '../../../src/persons/normalise.js'
import { processPersonEvent, type PersonResult } from '../../../src/persons/process-person.js'
import type { DistinctIdPage, DistinctIdRecord, PersonRecord, PersonTables } from '../../../src/persons/records.js'

/** A person as the persons API shows its ids: the record without its page numbers, with `distinct_ids` in stored order. */
export interface ListedPerson {
  id: number
  uuid: string
  environment_id: number
  properties: JsonObject
  distinct_ids: string[]
  is_identified: boolean
  created_at: string
  version: number
}

/** Person tables over plain maps, for the pure person logic. */
export const memoryTables = (environmentId = 1) => {
  const distinctIds = new Map<string, DistinctIdRecord>()
  const persons = new Map<string, PersonRecord>()
  const pages = new Map<string, DistinctIdPage>()
  let lastId = 0
  const tables: PersonTables = {
    environmentId,
    distinctId: (id) => distinctIds.get(id) ?? null,
    person: (uuid) => persons.get(uuid) ?? null,
    putDistinctId: (record) => { distinctIds.set(record.distinct_id, record) },
    putPerson: (record) => { persons.set(record.uuid, record) },
    deletePerson: (uuid) => { persons.delete(uuid) },
    page: (uuid, page) => pages.get(`${uuid}:${page}`) ?? null,
    putPage: (uuid, page, record) => {
      if (record) pages.set(`${uuid}:${page}`, record)
      else pages.delete(`${uuid}:${page}`)
    },
    nextPersonId: () => ++lastId,
  }
  const personOf = (distinctId: string): ListedPerson | null => {
    const id = distinctIds.get(distinctId)?.person_id
    const person = id ? persons.get(id) : undefined
    if (!person) return null
    const { id: number, uuid, environment_id, properties, is_identified, created_at, version } = person
    const ids: string[] = []
    for (let page = person.first_page; page <= person.last_page; page++) {
      ids.push(...(page === 0 ? person.distinct_ids : pages.get(`${uuid}:${page}`)?.ids ?? []))
    }
    return { id: number, uuid, environment_id, properties, distinct_ids: ids, is_identified, created_at, version }
  }
  return { tables, distinctIds, persons, pages, personOf }
}

let clock = Date.parse('2024-01-01T00:00:00.000Z')

/** A captured event as capture would record it; every call is one second after the last. */
export const captured = (event: string, distinctId: string, fields: Partial<CapturedEvent> = {}): CapturedEvent => {
  clock += 1000
  const timestamp = new Date(clock).toISOString()
  return {
    uuid: `0190${clock.toString(16).padStart(12, '0').slice(-4)}-0000-7000-8000-${clock.toString(16).padStart(12, '0')}`,
    event,
    distinct_id: distinctId,
    timestamp,
    properties: {},
    set: null,
    set_once: null,
    ip: null,
    now: timestamp,
    sent_at: null,
    ...fields,
  }
}

export const normalised = (event: CapturedEvent): NormalisedEvent => {
  const out = normaliseEvent(event)
  if (!out) throw new Error(`${event.event} was dropped`)
  return out
}

/** Runs person processing over events in order; returns each event's result. */
export const processAll = (tables: PersonTables, ...events: CapturedEvent[]): PersonResult[] =>
  events.map((event) => processPersonEvent(tables, normalised(event)))
