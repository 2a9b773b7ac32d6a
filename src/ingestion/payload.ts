import { type JsonObject, isJsonObject } from '../eventlog/port.js'
import { emptyBatch, parsingFailed } from './errors.js'

/** One event as a client sent it, before normalisation. */
export type RawEvent = JsonObject

/** The request after its shape was recognised (PostHog tries array, batch, then single event). */
export interface CaptureRequest {
  readonly shape: 'array' | 'batch' | 'single'
  readonly events: RawEvent[]
  /** `api_key` or `token` of a batch object; it wins over anything in the events. */
  readonly batchToken: unknown
  readonly historicalMigration: boolean
  /** The batch's `sent_at`, as sent. */
  readonly sentAt: unknown
}


const eventsOf = (items: unknown[]): RawEvent[] => {
  for (const item of items) if (!isJsonObject(item)) throw parsingFailed('every event must be a JSON object')
  return items as RawEvent[]
}

/**
 * Recognises the payload's shape. On `/engage` a single object without an event name is a person
 * update, which capture turns into `$identify`. Events named `$performance_event` are removed;
 * an empty list is refused, but one that became empty only by that removal is not.
 */
export const readCaptureRequest = (json: unknown, options: { engage?: boolean } = {}): CaptureRequest => {
  let request: CaptureRequest
  if (Array.isArray(json)) {
    request = { shape: 'array', events: eventsOf(json), batchToken: undefined, historicalMigration: false, sentAt: undefined }
  } else if (isJsonObject(json) && Array.isArray(json['batch'])) {
    request = {
      shape: 'batch',
      events: eventsOf(json['batch']),
      batchToken: json['api_key'] ?? json['token'],
      historicalMigration: json['historical_migration'] === true,
      sentAt: json['sent_at'],
    }
  } else if (isJsonObject(json)) {
    const event = options.engage && (json['event'] === undefined || json['event'] === null) ? { ...json, event: '$identify' } : json
    request = { shape: 'single', events: [event], batchToken: undefined, historicalMigration: false, sentAt: undefined }
  } else {
    throw parsingFailed('expected an event, an array of events or a batch object')
  }
  if (request.events.length === 0) throw emptyBatch()
  return request
}

/** PostHog drops these at capture: they belong to a product we do not serve. */
export const withoutPerformanceEvents = (events: RawEvent[]): RawEvent[] =>
  events.some((e) => e['event'] === '$performance_event') ? events.filter((e) => e['event'] !== '$performance_event') : events

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether every event kept (performance events aside) carries its own UUID: the request is then named by its content. */
export const namedByContent = (request: CaptureRequest): boolean =>
  request.events.every((e) => e['event'] === '$performance_event' || (typeof e['uuid'] === 'string' && UUID.test(e['uuid'])))
