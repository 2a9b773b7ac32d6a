import { MaxAppendSizeExceeded, StreamNotFound, WrongExpectedVersion } from '../eventlog/errors.js'
import type { EventData, EventLog, JsonObject, Position, RecordedEvent } from '../eventlog/port.js'
import { CHANGE_COMMITTED, PART_APPEND_BYTES, eventWeight, intoAppends, partStreamOf, readAggregateEvents, writeParts } from './change-parts.js'
import { commandEventId } from './command-ids.js'
import { ChangeTooLarge, ConcurrencyConflict, DomainError } from './errors.js'
import { newEventId } from './ids.js'
import { boundedCache } from './bounded-cache.js'
import type { LRUCache } from 'lru-cache'

export interface DomainEvent {
  readonly type: string
  readonly data: JsonObject
}

/** The three functions that hold an aggregate's rules. `decide` never reads clock or I/O. */
export interface Decider<State, Command, Event extends DomainEvent> {
  initialState(): State
  evolve(state: State, event: Event): State
  decide(command: Command, state: State): Event[]
}

/** Who did it, when, and why; stored as every event's metadata. */
export interface CommandContext {
  readonly actor: string
  /** ISO time, read once at the edge. */
  readonly now: string
  readonly correlationId: string
  readonly causationId?: string
  /**
   * Names the command, so that running it again is recognised: its events' ids are derived from
   * it (`commandEventId`). A client's `Idempotency-Key` gives it; otherwise each request has its
   * own (the correlation id), which still makes the handler's own retries exact.
   */
  readonly commandId?: string
}

export const SCHEMA_VERSION = 1

export const eventMetadata = (context: CommandContext): JsonObject => ({
  correlationId: context.correlationId,
  causationId: context.causationId ?? context.correlationId,
  actor: context.actor,
  occurredAt: context.now,
  schemaVersion: SCHEMA_VERSION,
})

export interface CommandResult<State, Event> {
  readonly events: Event[]
  readonly state: State
  /** Where the last new event landed in `$all`; null when the command changed nothing. */
  readonly position: Position | null
  /** The stream revision of the last new event; null when the command changed nothing. */
  readonly revision: bigint | null
  /** True when the command had landed before (a retry): nothing was written this time. */
  readonly replayed?: boolean
}

/** Reads a stream's events as domain events, with the revision to expect ('no_stream' if absent). */
export const readAggregate = async <Event extends DomainEvent>(
  log: EventLog, stream: string,
): Promise<{ events: Event[]; revision: bigint | 'no_stream' }> => {
  const events: Event[] = []
  let revision: bigint | 'no_stream' = 'no_stream'
  try {
    for await (const recorded of readAggregateEvents(log, stream)) {
      events.push({ type: recorded.type, data: recorded.data } as unknown as Event)
      revision = recorded.revision
    }
  } catch (error) {
    if (!(error instanceof StreamNotFound)) throw error
  }
  return { events, revision }
}

/** Where an event of the stream landed. */
interface Landed {
  readonly revision: bigint
  readonly position: Position
}

/** An aggregate's state as some decider folded it, up to a stream revision, with its events' ids. */
interface Folded {
  readonly decider: object
  readonly revision: bigint
  readonly state: unknown
  readonly ids: Map<string, Landed>
}

/** Aggregates folded per log, the least recently folded forgotten first. */
const foldedByLog = new WeakMap<EventLog, LRUCache<string, Folded>>()
/** Aggregates kept folded per log, at most. */
const KEPT_AGGREGATES = 1000

/**
 * An aggregate's current state, the revision to expect, and where each of its events landed.
 * The state this process last folded for the stream is kept (events never change once written,
 * and evolve is pure), so a command reads only the events appended since: a long-lived aggregate
 * costs no more than a new one.
 */
const foldAggregate = async <State, Event extends DomainEvent>(
  log: EventLog, decider: Decider<State, unknown, Event>, stream: string,
): Promise<{ state: State; revision: bigint | 'no_stream'; ids: Map<string, Landed> }> => {
  let kept = foldedByLog.get(log)
  if (!kept) foldedByLog.set(log, kept = boundedCache({ max: KEPT_AGGREGATES }))
  const cached = kept.get(stream)
  const start = cached !== undefined && cached.decider === decider ? cached : null
  let state = start ? (start.state as State) : decider.initialState()
  let revision: bigint | 'no_stream' = start ? start.revision : 'no_stream'
  // Shared with the kept fold: every entry added is an event that is in the stream.
  const ids = start?.ids ?? new Map<string, Landed>()
  const track = (recorded: RecordedEvent) => ids.set(recorded.id, { revision: recorded.revision, position: recorded.position })
  try {
    for await (const recorded of readAggregateEvents(log, stream, start ? { fromRevision: start.revision + 1n } : {}, track)) {
      state = decider.evolve(state, { type: recorded.type, data: recorded.data } as unknown as Event)
      revision = recorded.revision
    }
  } catch (error) {
    if (!(error instanceof StreamNotFound)) throw error
    kept.delete(stream)
    if (start) return foldAggregate(log, decider, stream)
    return { state, revision, ids }
  }
  if (revision !== 'no_stream') kept.set(stream, { decider, revision, state, ids })
  return { state, revision, ids }
}

/** How many commands each context has run on each stream: the n-th command of a request has ids of its own. */
const commandsRun = new WeakMap<CommandContext, Map<string, number>>()

const commandSalt = (context: CommandContext, stream: string): string => {
  let counts = commandsRun.get(context)
  if (!counts) commandsRun.set(context, counts = new Map())
  const ordinal = counts.get(stream) ?? 0
  counts.set(stream, ordinal + 1)
  const commandId = context.commandId ?? context.correlationId
  return ordinal === 0 ? commandId : `${commandId}#${ordinal}`
}

/** Where the last event of a command that landed is, when its first one is among `ids`. */
const landedCommand = (ids: Map<string, Landed>, idOf: (index: number) => string): Landed | null => {
  let last = ids.get(idOf(0))
  if (last === undefined) return null
  for (let index = 1; ; index++) {
    const next = ids.get(idOf(index))
    if (next === undefined) return last
    last = next
  }
}

/** Appends that fail without saying whether they were written (a timeout, a dropped connection) are tried again this often. */
const UNKNOWN_OUTCOME_RETRIES = 3

/**
 * Appends a command's events: as they are when they fit in one append, otherwise as a change in
 * parts (`change-parts.ts`) committed by one small event. Either way the aggregate's stream moves
 * by one append with the exact expected revision, so the change lands whole or not at all.
 */
const appendChange = async (log: EventLog, stream: string, events: EventData[], revision: bigint | 'no_stream') => {
  const weight = events.reduce((sum, event) => sum + eventWeight(event), 0)
  if (weight <= PART_APPEND_BYTES || events.length === 1) return log.append(stream, events, { expectedRevision: revision })
  // Each try writes parts of its own: a try that lost the race for the aggregate decides again,
  // perhaps differently, and its parts must not be mistaken for a retry of the earlier ones.
  const parts = partStreamOf(newEventId())
  await writeParts(log, parts, intoAppends(events.map((event) => ({ ...event, id: newEventId() }))))
  return log.append(stream, [{
    id: events[0]!.id, type: CHANGE_COMMITTED, data: { parts, events: events.length }, metadata: events[0]!.metadata,
  }], { expectedRevision: revision })
}

/**
 * The one way to change an aggregate: read its stream, fold, decide, append with the exact
 * expected revision (see `foldAggregate`). When another writer got there first the whole cycle
 * runs again on the new state, so concurrent commands are serialised rather than overwritten.
 * Under heavy contention on one aggregate the retries go on, with growing random pauses, until
 * `patienceMs` has passed.
 *
 * Event ids derive from the command id, so a command that already landed (a retry after an
 * append whose outcome was unknown, or a client's retry with the same `Idempotency-Key`) is
 * found in the stream and answered without deciding it again.
 */
export const handleCommand = async <State, Command, Event extends DomainEvent>(
  log: EventLog, decider: Decider<State, Command, Event>, stream: string, command: Command, context: CommandContext,
  patienceMs = 10_000,
): Promise<CommandResult<State, Event>> => {
  const deadline = Date.now() + patienceMs
  const salt = commandSalt(context, stream)
  const idOf = (index: number) => commandEventId(salt, stream, index)
  let unknownOutcomes = 0
  for (let attempt = 1; ; attempt++) {
    const { state, revision, ids } = await foldAggregate(log, decider as Decider<State, unknown, Event>, stream)
    const landed = landedCommand(ids, idOf)
    if (landed !== null) return { events: [], state, position: landed.position, revision: landed.revision, replayed: true }
    const newEvents = decider.decide(command, state)
    if (newEvents.length === 0) return { events: [], state, position: null, revision: null }
    const metadata = eventMetadata(context)
    try {
      const result = await appendChange(
        log, stream, newEvents.map((event, index) => ({ id: idOf(index), type: event.type, data: event.data, metadata })), revision,
      )
      const next = newEvents.reduce(decider.evolve, state)
      const kept = foldedByLog.get(log)
      if (kept) {
        const where = { revision: result.nextExpectedRevision, position: result.position }
        newEvents.forEach((_, index) => ids.set(idOf(index), where))
        kept.set(stream, { decider, revision: result.nextExpectedRevision, state: next, ids })
      }
      return { events: newEvents, state: next, position: result.position, revision: result.nextExpectedRevision }
    } catch (error) {
      if (error instanceof MaxAppendSizeExceeded) throw new ChangeTooLarge(error.size, error.maxAppendSize)
      if (error instanceof WrongExpectedVersion) {
        if (Date.now() >= deadline) throw new ConcurrencyConflict(stream)
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt * 4, 100)))
        continue
      }
      // Whether the append was written is unknown: fold again, which finds it if it was.
      if (error instanceof DomainError || error instanceof TypeError || ++unknownOutcomes > UNKNOWN_OUTCOME_RETRIES) throw error
      await new Promise((resolve) => setTimeout(resolve, 50 * unknownOutcomes))
    }
  }
}
