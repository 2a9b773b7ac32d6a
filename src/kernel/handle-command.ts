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

/**
 * The one way to change an aggregate: read its stream, fold, decide, append with the exact
 * expected revision. When another writer got there first the whole cycle runs again on the new
 * state, so concurrent commands are serialised rather than overwritten. Under heavy contention
 * on one aggregate the retries go on, with growing random pauses, until `patienceMs` has passed.
 */
export const handleCommand = async <State, Command, Event extends DomainEvent>(
  log: EventLog, decider: Decider<State, Command, Event>, stream: string, command: Command, context: CommandContext,
  patienceMs = 10_000,
): Promise<CommandResult<State, Event>> => {
  const deadline = Date.now() + patienceMs
  for (let attempt = 1; ; attempt++) {
    const { events, revision } = await readAggregate<Event>(log, stream)
    const state = events.reduce(decider.evolve, decider.initialState())
    const newEvents = decider.decide(command, state)
    if (newEvents.length === 0) return { events: [], state, position: null, revision: null }
    const metadata = eventMetadata(context)
    try {
      const result = await log.append(
        stream,
        newEvents.map((event) => ({ id: newEventId(), type: event.type, data: event.data, metadata })),
        { expectedRevision: revision },
      )
      return { events: newEvents, state: newEvents.reduce(decider.evolve, state), position: result.position, revision: result.nextExpectedRevision }
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion)) throw error
      if (Date.now() >= deadline) throw new ConcurrencyConflict(stream)
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt * 4, 100)))
    }
  }
}
