import type { EventLog, JsonObject, Position } from '../../../src/eventlog/port.js'
import type { CapturedEvent, EventsCapturedData } from '../../../src/ingestion/captured-event.js'
import { newEventId, newUlid } from '../../../src/kernel/ids.js'
import type { ReadModels } from '../../../src/readstore/read-models.js'

export const CAPTURED_COLLECTIONS = ['persons', 'person_distinct_ids', 'person_distinct_id_pages', 'groups', 'group_type_mappings', 'sessions', 'session_values', 'events']

let clock = Date.parse('2024-05-01T12:00:00.000Z')

/** A captured event, one second after the previous one unless a timestamp is given. */
export const event = (name: string, distinctId: string, fields: Partial<CapturedEvent> = {}): CapturedEvent => {
  clock += 1000
  const timestamp = fields.timestamp ?? new Date(clock).toISOString()
  return {
    uuid: newEventId(Date.parse(timestamp)),
    event: name,
    distinct_id: distinctId,
    timestamp,
    properties: {},
    set: null,
    set_once: null,
    ip: '127.0.0.1',
    now: timestamp,
    sent_at: null,
    ...fields,
  }
}

/** Appends one accepted capture request, as capture does: stream `ingest-<environmentId>-<ulid>`. */
export const capture = async (log: EventLog, environmentId: number, events: CapturedEvent[]): Promise<Position> => {
  const data: EventsCapturedData = { environmentId, events }
  const metadata: JsonObject = { correlationId: newEventId(), actor: 'phc_test', occurredAt: new Date().toISOString(), schemaVersion: 1 }
  const result = await log.append(`ingest-${environmentId}-${newUlid()}`, [{ id: newEventId(), type: 'EventsCaptured', data, metadata }], {
    expectedRevision: 'no_stream',
  })
  return result.position
}

/** Captures and waits until every captured-event read model has applied it. */
export const captureAndSettle = async (log: EventLog, models: ReadModels, environmentId: number, events: CapturedEvent[]): Promise<void> => {
  const position = await capture(log, environmentId, events)
  if (!(await models.waitFor(position, CAPTURED_COLLECTIONS, 10_000))) throw new Error('projections did not catch up')
}
