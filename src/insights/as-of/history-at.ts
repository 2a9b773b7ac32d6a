import { within, type Cutoff } from '../../eventlog/cutoff.js'
import type { EventLog, JsonObject, RecordedEvent } from '../../eventlog/port.js'
import { eventRecord } from '../../events/projection.js'
import type { EventRecord } from '../../events/record.js'
import { emptyMapping, processGroupEvent, type GroupRecord, type GroupTables, type GroupTypeMapping } from '../../groups/groups.js'
import { capturedEvents, normalisedOf } from '../../ingestion/captured-projection.js'
import { personUuid } from '../../persons/person-uuid.js'
import { processPersonEvent } from '../../persons/process-person.js'
import type { GroupTypeEntry, QueryEvent, QueryGroup, QueryPerson, QuerySource } from '../engine/data.js'
import { memorySource } from '../engine/memory-source.js'
import type { PersonReads } from '../read/read-models-source.js'
import { MemoryPersonTables } from './memory-persons.js'
import { forEachSliced, SLICE_MS, yieldToLoop } from '../../kernel/slices.js'

/** The person an event belonged to once person processing had handled it, and its properties then. */
interface EventPersonThen {
  readonly personId: string
  readonly properties: JsonObject
}

const NONE: JsonObject = Object.freeze({})

/**
 * What an environment's read models would have held at a moment, rebuilt from the log in
 * memory: its events (one per uuid, the later copy winning), the person each event belonged to
 * when it was processed, its persons and its groups. Queries run over it as over the read models.
 */
export class EnvironmentHistory {
  private sorted: EventRecord[] | null = null
  private persons: Map<string, QueryPerson> | null = null

  constructor(
    readonly environmentId: number,
    /** The moment, epoch ms: a query's "now". */
    readonly now: number,
    /** When the log recorded the newest capture of the environment included (epoch ms); null when none is. */
    readonly lastEventAt: number | null,
    private readonly events: ReadonlyMap<string, EventRecord>,
    private readonly links: ReadonlyMap<string, EventPersonThen>,
    private readonly tables: MemoryPersonTables,
    private readonly mapping: GroupTypeMapping,
    private readonly groupRecords: ReadonlyMap<string, GroupRecord>,
  ) {}

  /** The environment's group types then. */
  get groupTypes(): readonly GroupTypeEntry[] {
    return this.mapping.types
  }

  /**
   * A query source over the events then, joined with persons as `ReadModelsSource` joins them:
   * each event to the person its distinct id belonged to then (merges up to then applied), with
   * the person properties the query's mode reads.
   */
  async source(reads: PersonReads): Promise<QuerySource> {
    if (this.sorted === null) {
      // Each time parsed once, not in every comparison; the work is sliced so the event loop goes on.
      const keyed: Array<{ readonly t: number; readonly event: EventRecord }> = []
      await forEachSliced([...this.events.values()], (event) => { keyed.push({ t: Date.parse(event.timestamp), event }) })
      keyed.sort((a, b) => a.t - b.t || (a.event.uuid < b.event.uuid ? -1 : a.event.uuid > b.event.uuid ? 1 : 0))
      this.sorted = keyed.map((one) => one.event)
    }
    this.persons ??= this.tables.queryPersons()
    const rows: QueryEvent[] = []
    await forEachSliced(this.sorted, (event) => { rows.push(this.row(event, reads)) })
    return memorySource(rows, this.groupsByType(), this.persons)
  }

  private row(event: EventRecord, reads: PersonReads): QueryEvent {
    const timestamp = Date.parse(event.timestamp)
    const mode = reads.properties
    // A query that reads nothing of persons but who they are reads only the mapping, as the read-models source does.
    const bare = mode === null && !reads.createdAt
    const mapped = bare ? this.tables.personIdOf(event.distinct_id) : null
    const person = bare ? null : this.tables.personOf(event.distinct_id)
    const then = mode === 'at_event' ? this.links.get(event.uuid) : undefined
    return {
      uuid: event.uuid,
      event: event.event,
      timestamp,
      distinctId: event.distinct_id,
      personId: mapped ?? person?.uuid ?? personUuid(this.environmentId, event.distinct_id),
      personCreatedAt: person ? Date.parse(person.created_at) : timestamp,
      properties: event.properties,
      personProperties: mode === null ? NONE : then?.properties ?? person?.properties ?? NONE,
      elementsChain: event.elements_chain ?? '',
    }
  }

  private groupsByType(): Map<number, Map<string, QueryGroup>> {
    const byType = new Map<number, Map<string, QueryGroup>>()
    for (const group of this.groupRecords.values()) {
      const groups = byType.get(group.group_type_index) ?? new Map<string, QueryGroup>()
      groups.set(group.group_key, { properties: group.group_properties, createdAt: Date.parse(group.created_at) })
      byType.set(group.group_type_index, groups)
    }
    return byType
  }
}

const HANDLED = new Set<string>(capturedEvents.handles)

const environmentOfRecord = (event: RecordedEvent): unknown => (event.data as { environmentId?: unknown }).environmentId

/**
 * One environment's analytics history as the log held it at the cutoff. Reads the log forwards
 * from its start up to the first event recorded after the cutoff, taking the capture requests and
 * committed imports of the environment, and folds them, in log order, with the pure code of the
 * events, persons and groups projections. Memory holds the environment's events, persons and
 * groups; nothing of other environments is kept. A time cutoff is the query's "now"; a position's
 * is the time the last event at or before it was recorded.
 */
export const historyAt = async (log: EventLog, environmentId: number, cutoff: Cutoff): Promise<EnvironmentHistory> => {
  const events = new Map<string, EventRecord>()
  const links = new Map<string, EventPersonThen>()
  const persons = new MemoryPersonTables(environmentId)
  const groups = new Map<string, GroupRecord>()
  const groupTables: GroupTables = {
    environmentId,
    group: (index, key) => groups.get(`${index}:${key}`) ?? null,
    putGroup: (record) => { groups.set(`${record.group_type_index}:${record.group_key}`, record) },
  }
  let mapping = emptyMapping(environmentId)
  let lastEventAt: number | null = null
  let lastRecordedAt: number | null = null

  const apply = (unit: RecordedEvent): void => {
    for (const normalised of normalisedOf(unit).events) {
      events.set(normalised.uuid, eventRecord(environmentId, normalised))
      processPersonEvent(persons, normalised)
      // As the persons projection links it: a later copy of the event without a person keeps the earlier link.
      const person = persons.personOf(normalised.distinctId)
      if (person) links.set(normalised.uuid, { personId: person.uuid, properties: person.properties })
      mapping = processGroupEvent(groupTables, mapping, normalised)
    }
  }

  let sliceStart = performance.now()
  for await (const recorded of log.readAll()) {
    if (!within(cutoff, recorded)) break
    // Reading the log yields only between promises: the event loop is handed back between slices.
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop()
      sliceStart = performance.now()
    }
    lastRecordedAt = recorded.created.getTime()
    if (!HANDLED.has(recorded.type) || environmentOfRecord(recorded) !== environmentId) continue
    const expanded = capturedEvents.expand(recorded, log)
    if (expanded === null) apply(recorded)
    else for await (const unit of expanded) apply(unit)
    lastEventAt = recorded.created.getTime()
  }
  const now = cutoff.kind === 'time' ? cutoff.at.getTime() : lastRecordedAt ?? 0
  return new EnvironmentHistory(environmentId, now, lastEventAt, events, links, persons, mapping, groups)
}
