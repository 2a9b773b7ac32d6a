import type { CapturedEvent } from '../../../src/ingestion/captured-event.js'
import { normaliseEvent, type NormalisedEvent } from '../../../src/persons/normalise.js'
import { processPersonEvent, type PersonResult } from '../../../src/persons/process-person.js'
import type { DistinctIdRecord, PersonRecord, PersonTables } from '../../../src/persons/records.js'

/** Person tables over plain maps, for the pure person logic. */
export const memoryTables = (environmentId = 1) => {
  const distinctIds = new Map<string, DistinctIdRecord>()
  const persons = new Map<string, PersonRecord>()
  let lastId = 0
  const tables: PersonTables = {
    environmentId,
    distinctId: (id) => distinctIds.get(id) ?? null,
    person: (uuid) => persons.get(uuid) ?? null,
    putDistinctId: (record) => { distinctIds.set(record.distinct_id, record) },
    putPerson: (record) => { persons.set(record.uuid, record) },
    deletePerson: (uuid) => { persons.delete(uuid) },
    nextPersonId: () => ++lastId,
  }
  const personOf = (distinctId: string): PersonRecord | null => {
    const id = distinctIds.get(distinctId)?.person_id
    return id ? persons.get(id) ?? null : null
  }
  return { tables, distinctIds, persons, personOf }
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
