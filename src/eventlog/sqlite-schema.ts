import Database from 'better-sqlite3'
import type { RecordedEvent } from './port.js'

/**
 * Every durable commit writes each page it dirtied to the WAL, so each append touches as few
 * B-trees as possible: the events table (always its last page) and the (stream, revision)
 * index, which also answers "last revision of a stream". `deleted_streams` holds only streams
 * that were soft-deleted or tombstoned. Small columns come first, so filters on type and stream
 * never read overflowing data pages. No unique index on event_id: EventStoreDB allows one id in
 * two streams.
 */
export const SCHEMA = `
CREATE TABLE IF NOT EXISTS deleted_streams (
  stream_id TEXT PRIMARY KEY,
  truncate_before INTEGER NOT NULL DEFAULT 0,
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

/** A connection to the log's file as every user of it opens one: WAL, every commit durable. */
export const openLogDatabase = (path: string): Database.Database => {
  const db = new Database(path)
  db.defaultSafeIntegers(true)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('busy_timeout = 5000')
  db.exec(SCHEMA)
  return db
}
