import type { RecordedEvent } from './port.js'

/**
 * Small columns first, so filters on type and stream never read the (possibly overflowing)
 * data pages. No global unique index on event_id: EventStoreDB allows one id in two streams.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS streams (
  stream_id TEXT PRIMARY KEY,
  last_revision INTEGER NOT NULL,
  truncate_before INTEGER,
  soft_deleted INTEGER NOT NULL DEFAULT 0,
  tombstoned INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
  global_position INTEGER PRIMARY KEY AUTOINCREMENT,
  stream_id TEXT NOT NULL,
  stream_revision INTEGER NOT NULL,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  data TEXT NOT NULL,
  metadata TEXT,
  UNIQUE (stream_id, stream_revision)
);
CREATE INDEX IF NOT EXISTS events_by_stream_and_id ON events (stream_id, event_id);
PRAGMA user_version = 1;
`

export const EVENT_COLUMNS = 'global_position, stream_id, stream_revision, event_id, event_type, created_ms, data, metadata'

export interface EventRow {
  global_position: bigint
  stream_id: string
  stream_revision: bigint
  event_id: string
  event_type: string
  created_ms: bigint
  data: string
  metadata: string | null
}

export const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  streamId: row.stream_id,
  id: row.event_id,
  revision: row.stream_revision,
  type: row.event_type,
  data: JSON.parse(row.data),
  metadata: row.metadata === null ? undefined : JSON.parse(row.metadata),
  created: new Date(Number(row.created_ms)),
  position: { commit: row.global_position, prepare: row.global_position },
})
