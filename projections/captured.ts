import type { RecordedEvent } from '../src/eventlog/port.js'
import { EVENTS_CAPTURED, type CapturedEvent, type EventsCapturedData } from '../src/ingestion/captured-event.js'
import { normaliseEvent, type NormalisedEvent } from '../src/persons/normalise.js'

/** The event types the captured-event projectors read. */
export const CAPTURED_HANDLES = [EVENTS_CAPTURED] as const

/**
 * Log events per commit for the captured-event projectors: one log event can hold hundreds of
 * analytics events, so commits stay small enough not to delay the other projections.
 */
export const CAPTURED_BATCH = 50

/** The environment and analytics events of one `EventsCaptured` log event. */
export const capturedOf = (event: RecordedEvent): { environmentId: number; events: readonly CapturedEvent[] } => {
  const data = event.data as EventsCapturedData
  return { environmentId: data.environmentId, events: Array.isArray(data.events) ? data.events : [] }
}

const MEMO_LIMIT = 2048
const memo = new Map<string, readonly NormalisedEvent[]>()

/**
 * The normalised events of one log event, without the dropped ones. Every captured-event
 * projector reads the same log events at about the same time, so this pure step runs once per
 * record (its stream, revision and id) and the projectors share the result, which they never change.
 */
export const normalisedOf = (event: RecordedEvent): { environmentId: number; events: readonly NormalisedEvent[] } => {
  const { environmentId, events } = capturedOf(event)
  const key = `${event.streamId}\u0000${event.revision}\u0000${event.id}`
  let normalised = memo.get(key)
  if (!normalised) {
    normalised = events.map(normaliseEvent).filter((one): one is NormalisedEvent => one !== null)
    if (memo.size >= MEMO_LIMIT) memo.delete(memo.keys().next().value!)
    memo.set(key, normalised)
  }
  return { environmentId, events: normalised }
}
