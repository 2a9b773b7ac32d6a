import type { EventLog, RecordedEvent } from '../src/eventlog/port.js'
import { EVENTS_CAPTURED, type CapturedEvent, type EventsCapturedData } from '../src/ingestion/captured-event.js'
import { IMPORT_COMMITTED, capturedFromImport } from '../src/ingestion/import-events.js'
import { normaliseEvent, type NormalisedEvent } from '../src/persons/normalise.js'
import type { Projector } from './projector.js'

/**
 * What every captured-event projector shares: it reads capture requests and committed historical
 * imports (whose chunks it sees as capture requests, applied whole in one commit); it commits every
 * 50 log events, since one log event can hold hundreds of analytics events; and when it fails on a
 * request, only the analytics events it fails on are quarantined.
 */
export const capturedEvents = {
  handles: [EVENTS_CAPTURED, IMPORT_COMMITTED],
  batchSize: 50,
  expand: (event: RecordedEvent, log: EventLog) => (event.type === IMPORT_COMMITTED ? capturedFromImport(log, event) : null),
  split: (event: RecordedEvent): RecordedEvent[] => {
    const data = event.data as EventsCapturedData
    if (!Array.isArray(data.events) || data.events.length < 2) return []
    return data.events.map((one, index) => ({ ...event, id: `${event.id}#${index}`, data: { ...data, events: [one] } }))
  },
} satisfies Partial<Projector>

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
