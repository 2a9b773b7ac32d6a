import type { JsonObject } from '../eventlog/port.js'

/**
 * One analytics event as capture accepted it: the client's event plus the envelope capture adds.
 * Capture interprets nothing about persons or groups; the projectors do (top-level `$set` and
 * `$set_once` are kept apart here and merged by person processing).
 */
export interface CapturedEvent extends JsonObject {
  /** The client's `uuid` verbatim when it is a UUID, else a UUIDv7 from the receive time. */
  uuid: string
  event: string
  distinct_id: string
  /** After clock-skew correction (`sent_at`, `offset`, `timestamp`). */
  timestamp: string
  properties: JsonObject
  /** Top-level `$set` / `$set_once` of the sent event, when present. */
  set: JsonObject | null
  set_once: JsonObject | null
  /** The caller's address (leftmost X-Forwarded-For, else the peer). */
  ip: string | null
  /** Receive time, ISO. */
  now: string
  sent_at: string | null
}

/** Log event type of a realtime capture or batch request; stream `ingest-<environmentId>-<requestId>`. */
export const EVENTS_CAPTURED = 'EventsCaptured'

export interface EventsCapturedData extends JsonObject {
  environmentId: number
  events: CapturedEvent[]
}
