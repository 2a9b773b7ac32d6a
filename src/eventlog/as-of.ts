import { StreamNotFound } from './errors.js'
import type { EventLog, RecordedEvent } from './port.js'
import { readAggregateEvents } from '../kernel/change-parts.js'
import { within, type Cutoff } from './cutoff.js'

/** The events of a stream up to the cutoff, in order; none when the stream does not exist. */
export const streamUntil = async (log: EventLog, stream: string, cutoff: Cutoff | null): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = []
  try {
    for await (const event of readAggregateEvents(log, stream)) {
      if (cutoff && !within(cutoff, event)) break
      events.push(event)
    }
  } catch (error) {
    if (!(error instanceof StreamNotFound)) throw error
  }
  return events
}

/**
 * An aggregate exactly as it stood at the cutoff: its own stream folded, event by event, with
 * the same evolve its read model is built with. Null before it was created.
 */
export const stateAsOf = async <State, Event>(
  log: EventLog, stream: string, evolve: (state: State, event: Event) => State, initial: State, cutoff: Cutoff,
): Promise<State> => {
  const events = await streamUntil(log, stream, cutoff)
  return events.reduce((state, event) => evolve(state, { type: event.type, data: event.data } as Event), initial)
}
