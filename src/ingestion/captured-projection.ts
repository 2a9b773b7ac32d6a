import type { EventLog, RecordedEvent } from '../eventlog/port.js'
import { EVENTS_CAPTURED, type CapturedEvent, type EventsCapturedData } from './captured-event.js'
import { IMPORT_COMMITTED, capturedFromImport } from './import-events.js'
import { normaliseEvent, type NormalisedEvent } from '../persons/normalise.js'
import type { ProjectionView, Projector } from '../readstore/projector.js'

/**
 * What every captured-event projector shares: it reads capture requests and committed historical
 * imports (whose chunks it sees as capture requests, applied whole in one commit); it commits once a
 * batch holds about 1,000 analytics events, however many log events carried them; and when it fails on a
 * request, only the analytics events it fails on are quarantined.
 */
export const capturedEvents = {
  handles: [EVENTS_CAPTURED, IMPORT_COMMITTED],
  batchSize: 1000,
  weight: (event: RecordedEvent): number => {
    const events = (event.data as Partial<EventsCapturedData>).events
    return Array.isArray(events) ? Math.max(1, events.length) : 1
  },
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

/**
 * The normalised events of one log event, without the dropped ones. Given the projection's view,
 * the pure normalisation runs once per log event for all the projections of one projection set.
 */
export const normalisedOf = (event: RecordedEvent, view?: Pick<ProjectionView, 'decoded'>): { environmentId: number; events: readonly NormalisedEvent[] } => {
  const { environmentId, events } = capturedOf(event)
  const normalise = (): readonly NormalisedEvent[] => events.map(normaliseEvent).filter((one): one is NormalisedEvent => one !== null)
  return { environmentId, events: view ? view.decoded(event, 'normalised', normalise) : normalise() }
}

/**
 * The normalised events of one log event whose documents this view's partition holds, by the key
 * `keyOf` reads from each captured event as sent (null: the event has no document here). A view
 * that holds every key shares the normalisation with the other projections (`normalisedOf`); a
 * partition normalises only its own events, the work it does not share with the others.
 */
export const ownedNormalised = (
  event: RecordedEvent, view: Pick<ProjectionView, 'decoded' | 'owns'>, keyOf: (environmentId: number, captured: CapturedEvent) => string | null,
): { environmentId: number; events: readonly NormalisedEvent[] } => {
  const { environmentId, events } = capturedOf(event)
  const keys = events.map((captured) => keyOf(environmentId, captured))
  if (keys.every((key) => key === null || view.owns(key))) return normalisedOf(event, view)
  const normalised: NormalisedEvent[] = []
  events.forEach((captured, index) => {
    const key = keys[index]!
    if (key === null || !view.owns(key)) return
    const one = normaliseEvent(captured)
    if (one !== null) normalised.push(one)
  })
  return { environmentId, events: normalised }
}
