import { StreamNotFound, WrongExpectedVersion } from '../eventlog/errors.js'
import type { EventLog, JsonObject, Position } from '../eventlog/port.js'
import { ConcurrencyConflict } from './errors.js'
import { newEventId } from './ids.js'

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
}

/** Reads a stream's events as domain events, with the revision to expect ('no_stream' if absent). */
export const readAggregate = async <Event extends DomainEvent>(
  log: EventLog, stream: string,
): Promise<{ events: Event[]; revision: bigint | 'no_stream' }> => {
  const events: Event[] = []
  let revision: bigint | 'no_stream' = 'no_stream'
  try {
    for await (const recorded of log.readStream(stream)) {
      events.push({ type: recorded.type, data: recorded.data } as unknown as Event)
      revision = recorded.revision
    }
  } catch (error) {
    if (!(error instanceof StreamNotFound)) throw error
  }
  return { events, revision }
}

/** An aggregate's state as some decider folded it, up to a stream revision. */
interface Folded {
  readonly decider: object
  readonly revision: bigint
  readonly state: unknown
}

/** Aggregates folded per log, most recently used last. */
const foldedByLog = new WeakMap<EventLog, Map<string, Folded>>()
/** Aggregates kept folded per log, at most. */
const KEPT_AGGREGATES = 1000

/**
 * An aggregate's current state and the revision to expect. The state this process last folded
 * for the stream is kept (events never change once written, and evolve is pure), so a command
 * reads only the events appended since: a long-lived aggregate costs no more than a new one.
 */
const foldAggregate = async <State, Event extends DomainEvent>(
  log: EventLog, decider: Decider<State, unknown, Event>, stream: string,
): Promise<{ state: State; revision: bigint | 'no_stream' }> => {
  let kept = foldedByLog.get(log)
  if (!kept) foldedByLog.set(log, kept = new Map())
  const cached = kept.get(stream)
  const start = cached !== undefined && cached.decider === decider ? cached : null
  let state = start ? (start.state as State) : decider.initialState()
  let revision: bigint | 'no_stream' = start ? start.revision : 'no_stream'
  try {
    for await (const recorded of log.readStream(stream, start ? { fromRevision: start.revision + 1n } : {})) {
      state = decider.evolve(state, { type: recorded.type, data: recorded.data } as unknown as Event)
      revision = recorded.revision
    }
  } catch (error) {
    if (!(error instanceof StreamNotFound)) throw error
    kept.delete(stream)
    if (start) return foldAggregate(log, decider, stream)
    return { state, revision }
  }
  if (revision !== 'no_stream') remember(kept, stream, { decider, revision, state })
  return { state, revision }
}

const remember = (kept: Map<string, Folded>, stream: string, folded: Folded): void => {
  kept.delete(stream)
  if (kept.size >= KEPT_AGGREGATES) kept.delete(kept.keys().next().value!)
  kept.set(stream, folded)
}

/**
 * The one way to change an aggregate: read its stream, fold, decide, append with the exact
 * expected revision (see `foldAggregate`). When another writer got there first the whole cycle
 * runs again on the new state, so concurrent commands are serialised rather than overwritten.
 * Under heavy contention on one aggregate the retries go on, with growing random pauses, until
 * `patienceMs` has passed.
 */
export const handleCommand = async <State, Command, Event extends DomainEvent>(
  log: EventLog, decider: Decider<State, Command, Event>, stream: string, command: Command, context: CommandContext,
  patienceMs = 10_000,
): Promise<CommandResult<State, Event>> => {
  const deadline = Date.now() + patienceMs
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await foldAggregate(log, decider as Decider<State, unknown, Event>, stream)
    const newEvents = decider.decide(command, state)
    if (newEvents.length === 0) return { events: [], state, position: null, revision: null }
    const metadata = eventMetadata(context)
    try {
      const result = await log.append(
        stream,
        newEvents.map((event) => ({ id: newEventId(), type: event.type, data: event.data, metadata })),
        { expectedRevision: revision },
      )
      const next = newEvents.reduce(decider.evolve, state)
      const kept = foldedByLog.get(log)
      if (kept) remember(kept, stream, { decider, revision: result.nextExpectedRevision, state: next })
      return { events: newEvents, state: next, position: result.position, revision: result.nextExpectedRevision }
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion)) throw error
      if (Date.now() >= deadline) throw new ConcurrencyConflict(stream)
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt * 4, 100)))
    }
  }
}
