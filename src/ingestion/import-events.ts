import type { EventLog, JsonObject, RecordedEvent } from '../eventlog/port.js'
import { EVENTS_CAPTURED, type CapturedEvent, type EventsCapturedData } from './captured-event.js'

/**
 * Historical-migration batches (`/batch/` with `historical_migration: true`). Each batch is
 * written whole to its own stream, `import-<environmentId>-<batchId>`: ImportStarted, then its
 * events in ImportChunkAppended records, then ImportCompleted. Only an ImportCommitted on the
 * environment's ledger, `importlog-<environmentId>`, makes it visible: the ledger's order is the
 * order in which imports apply, and projectors read a committed import whole, in one step.
 */
export const IMPORT_STARTED = 'ImportStarted'
export const IMPORT_CHUNK_APPENDED = 'ImportChunkAppended'
export const IMPORT_COMPLETED = 'ImportCompleted'
export const IMPORT_COMMITTED = 'ImportCommitted'

export interface ImportStartedData extends JsonObject {
  environmentId: number
  batchId: string
  historicalMigration: true
  recordCount: number
  chunkCount: number
  sha256: string
}

export interface ImportChunkAppendedData extends JsonObject {
  /** 0-based chunk number within the import. */
  seq: number
  events: CapturedEvent[]
}

export interface ImportCompletedData extends JsonObject {
  environmentId: number
  batchId: string
  chunkCount: number
  recordCount: number
  sha256: string
}

export interface ImportCommittedData extends JsonObject {
  environmentId: number
  batchId: string
  importStream: string
  /** Revisions of the import stream that hold the import, both inclusive. */
  firstRevision: number
  lastRevision: number
  recordCount: number
  /** SHA-256 (hex) of the events' JSON texts in order, each followed by a newline. */
  sha256: string
}

export const importStream = (environmentId: number, batchId: string): string => `import-${environmentId}-${batchId}`
export const importLogStream = (environmentId: number): string => `importlog-${environmentId}`

/**
 * The chunks of a committed import, each presented as an `EventsCaptured` event so projectors
 * need not know imports exist. Each keeps its own stream, revision and id, and takes the ledger
 * event's position: the import becomes visible at the place the ledger gives it.
 */
export async function* capturedFromImport(log: EventLog, committed: RecordedEvent): AsyncIterable<RecordedEvent> {
  const data = committed.data as ImportCommittedData
  const first = BigInt(data.firstRevision)
  const count = data.lastRevision - data.firstRevision + 1
  let seen = 0
  let expectedSeq = 0
  for await (const recorded of log.readStream(data.importStream, { fromRevision: first, maxCount: count })) {
    if (recorded.type !== IMPORT_CHUNK_APPENDED) continue
    const chunk = recorded.data as ImportChunkAppendedData
    if (chunk.seq !== expectedSeq++) throw new Error(`${data.importStream}: chunk ${chunk.seq} out of order`)
    seen += chunk.events.length
    const captured: EventsCapturedData = { environmentId: data.environmentId, events: chunk.events }
    yield {
      streamId: recorded.streamId,
      id: recorded.id,
      revision: recorded.revision,
      type: EVENTS_CAPTURED,
      data: captured,
      metadata: recorded.metadata,
      created: recorded.created,
      position: committed.position,
    }
  }
  if (seen !== data.recordCount) throw new Error(`${data.importStream}: ${seen} events stored, ${data.recordCount} committed`)
}
