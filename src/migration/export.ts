import type { EventLog, JsonObject, RecordedEvent } from '../eventlog/port.js'
import { EVENTS_CAPTURED, type CapturedEvent, type EventsCapturedData } from '../ingestion/captured-event.js'
import { IMPORT_COMMITTED, capturedFromImport, type ImportCommittedData } from '../ingestion/import-events.js'
import { within, type Cutoff } from '../eventlog/cutoff.js'

/**
 * One stored event as PostHog's `/batch/` takes it back. What capture added to the event is
 * written into it the way a client could have sent it: the caller's address as `$ip` and the
 * request's `sent_at` as `$sent_at` (both only when the event did not set them itself), and the
 * timestamp already corrected for clock skew. Sent again without `sent_at`, it is stored the same.
 */
export const exportedEvent = (captured: CapturedEvent): JsonObject => {
  const properties: JsonObject = { ...(captured.properties ?? {}) }
  if (!properties['$ip'] && captured.ip) properties['$ip'] = captured.ip
  if (captured.sent_at) properties['$sent_at'] = captured.sent_at
  return {
    uuid: captured.uuid,
    event: captured.event,
    distinct_id: captured.distinct_id,
    timestamp: captured.timestamp,
    properties,
    ...(captured.set ? { $set: captured.set } : {}),
    ...(captured.set_once ? { $set_once: captured.set_once } : {}),
  }
}

export interface ExportOptions {
  readonly environmentId: number
  /** Log records after this moment only (exclusive). */
  readonly since?: Cutoff
  /** Log records up to this moment only (inclusive). */
  readonly until?: Cutoff
}

/** The analytics events of one log record of the environment, in their stored order. */
export async function* capturedIn(log: EventLog, environmentId: number, record: RecordedEvent): AsyncIterable<CapturedEvent> {
  if (record.type === EVENTS_CAPTURED) {
    const data = record.data as EventsCapturedData
    if (data.environmentId === environmentId && Array.isArray(data.events)) yield* data.events
  } else if (record.type === IMPORT_COMMITTED && (record.data as ImportCommittedData).environmentId === environmentId) {
    for await (const chunk of capturedFromImport(log, record)) yield* (chunk.data as EventsCapturedData).events
  }
}

/**
 * The environment's ingested events in the order the read models applied them: realtime
 * requests where the log holds them, each historical import where its commit stands.
 */
export async function* exportEvents(log: EventLog, options: ExportOptions, onRecord?: (record: RecordedEvent) => void): AsyncIterable<JsonObject> {
  for await (const record of log.readAll()) {
    onRecord?.(record)
    if (options.until && !within(options.until, record)) return
    if (options.since && within(options.since, record)) continue
    for await (const captured of capturedIn(log, options.environmentId, record)) yield exportedEvent(captured)
  }
}
