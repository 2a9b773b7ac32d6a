import type { EventLog, RecordedEvent } from '../../eventlog/port.js'
import { eventKey, type EventRecord } from '../../events/record.js'
import { capturedEvents, normalisedOf } from '../../ingestion/captured-projection.js'
import { distinctIdKey } from '../../persons/records.js'
import { personUuid } from '../../persons/person-uuid.js'
import { mergeSourceOf } from '../../persons/projection.js'
import type { ReadModels } from '../../readstore/read-models.js'
import type { QueryEvent } from '../engine/data.js'
import { ReadModelsSource } from '../read/read-models-source.js'

/**
 * What live queries are told, in log order: a stored event with its person, a merge of two
 * persons, or that an event told already was stored again with other content (a copy of its
 * uuid whose name, time, distinct id, properties or elements differ), which replaced the copy
 * told: what was counted of the old copy cannot be taken back, so the queries of its environment
 * no longer hold the events' answer.
 */
export type FeedStep =
  | { readonly kind: 'event'; readonly environmentId: number; readonly event: QueryEvent }
  | { readonly kind: 'merge'; readonly environmentId: number; readonly from: string; readonly into: string }
  | { readonly kind: 'replaced'; readonly environmentId: number; readonly uuid: string }

/** A 53-bit hash of a text (cyrb53): what is kept of each event told, to find a copy with other content. */
const hash = (text: string): number => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/** What the events read model stores of an event that a live query reads (its person aside, which merges change). */
const contentOf = (row: QueryEvent): number =>
  hash(JSON.stringify([row.event, row.timestamp, row.distinctId, row.properties, row.elementsChain]))

/** The analytics events of log events, imports expanded into the capture requests they hold. */
export async function* capturedIn(log: EventLog, events: readonly RecordedEvent[]): AsyncGenerator<RecordedEvent> {
  for (const event of events) {
    const expanded = capturedEvents.expand(event, log)
    if (expanded === null) yield event
    else yield* expanded
  }
}

/**
 * Turns log events into what live queries are told, reading the read models after the events
 * and persons projections have passed them: each stored analytics event with its person as the
 * read models know it, and merges found by remembering whose each distinct id was when last
 * told. A distinct id whose person differs from the one remembered was merged: the remembered
 * person went into the new one, with every distinct id it had. An event whose uuid was told
 * already is told once (the events read model keeps one copy of it); when the copy stored now
 * differs from the one told (the events read model keeps the last copy of a uuid), that is told
 * as `replaced`.
 */
export class Feed {
  /** Per environment: distinct id → the person its events were told with. */
  private readonly persons = new Map<number, Map<string, string>>()
  /** Per environment: person → its distinct ids told. */
  private readonly idsOf = new Map<number, Map<string, Set<string>>>()
  /** Each event told: the hash of its content as told. */
  private readonly told = new Map<string, number>()

  constructor(private readonly models: ReadModels) {}

  /** Analytics events told so far. */
  get size(): number {
    return this.told.size
  }

  /** The steps of a run of capture requests (imports already expanded), in log order. */
  async steps(captured: readonly RecordedEvent[]): Promise<FeedStep[]> {
    const byEnvironment = new Map<number, { uuids: string[]; sources: Map<string, string | null> }>()
    const ordered: Array<{ environmentId: number; uuid: string; distinctId: string; source: string | null }> = []
    for (const event of captured) {
      const { environmentId, events } = normalisedOf(event)
      let entry = byEnvironment.get(environmentId)
      if (entry === undefined) byEnvironment.set(environmentId, entry = { uuids: [], sources: new Map() })
      for (const one of events) {
        const source = mergeSourceOf(one.properties, one.event)
        entry.uuids.push(one.uuid)
        ordered.push({ environmentId, uuid: one.uuid, distinctId: one.distinctId, source })
      }
    }
    const rows = new Map<string, QueryEvent>()
    const owners = new Map<string, string>()
    for (const [environmentId, { uuids }] of byEnvironment) {
      const keys = [...new Set(uuids)].map((uuid) => eventKey(environmentId, uuid))
      const records = [...(await this.models.getMany('events', keys)).values()] as EventRecord[]
      const source = new ReadModelsSource(this.models, environmentId, { properties: 'at_event', createdAt: true })
      for (const row of await source.rowsOf(records)) rows.set(eventKey(environmentId, row.uuid), row)
      const sources = [...new Set(ordered.filter((one) => one.environmentId === environmentId && one.source !== null).map((one) => one.source!))]
      const mappings = await this.models.getMany('person_distinct_ids', sources.map((id) => distinctIdKey(environmentId, id)), ['person_id'])
      for (const id of sources) owners.set(eventKey(environmentId, id), mappings.get(distinctIdKey(environmentId, id))?.person_id ?? personUuid(environmentId, id))
    }
    const steps: FeedStep[] = []
    for (const one of ordered) {
      const key = eventKey(one.environmentId, one.uuid)
      const row = rows.get(key)
      if (one.source !== null) this.reconcile(one.environmentId, one.source, owners.get(eventKey(one.environmentId, one.source))!, steps)
      // Not stored (dropped by the events projection), or told already: a copy of one event counts once.
      if (row === undefined) continue
      const content = contentOf(row)
      const told = this.told.get(key)
      if (told !== undefined) {
        // Stored again with other content: the copy told is not the one the read model keeps.
        if (told !== content) {
          this.told.set(key, content)
          steps.push({ kind: 'replaced', environmentId: one.environmentId, uuid: one.uuid })
        }
        continue
      }
      this.told.set(key, content)
      this.reconcile(one.environmentId, row.distinctId, row.personId, steps)
      steps.push({ kind: 'event', environmentId: one.environmentId, event: row })
    }
    return steps
  }

  /** Tells a merge when `distinctId` now belongs to another person than it was told with. */
  private reconcile(environmentId: number, distinctId: string, person: string, steps: FeedStep[]): void {
    let persons = this.persons.get(environmentId)
    let idsOf = this.idsOf.get(environmentId)
    if (persons === undefined || idsOf === undefined) {
      this.persons.set(environmentId, persons = new Map())
      this.idsOf.set(environmentId, idsOf = new Map())
    }
    const known = persons.get(distinctId)
    if (known === person) return
    if (known !== undefined) {
      steps.push({ kind: 'merge', environmentId, from: known, into: person })
      const moved = idsOf.get(known) ?? new Set()
      idsOf.delete(known)
      let into = idsOf.get(person)
      if (into === undefined) idsOf.set(person, into = new Set())
      for (const id of moved) {
        persons.set(id, person)
        into.add(id)
      }
      return
    }
    persons.set(distinctId, person)
    let ids = idsOf.get(person)
    if (ids === undefined) idsOf.set(person, ids = new Set())
    ids.add(distinctId)
  }
}
