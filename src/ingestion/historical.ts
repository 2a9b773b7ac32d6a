import { createHash } from 'node:crypto'
import { StreamNotFound, Unavailable, WrongExpectedVersion } from '../eventlog/errors.js'
import type { EventData, EventLog, JsonObject, Position } from '../eventlog/port.js'
import type { CapturedEvent } from './captured-event.js'
import { unavailable } from './errors.js'
import {
  IMPORT_CHUNK_APPENDED, IMPORT_COMMITTED, IMPORT_COMPLETED, IMPORT_STARTED, importLogStream, importStream,
  type ImportChunkAppendedData, type ImportCommittedData, type ImportCompletedData, type ImportStartedData,
} from './import-events.js'
import { batchKey, type ImportLedger } from './import-ledger.js'
import { groupAppends, packEvents, weighSliced, weightOf } from './packing.js'
import { stableEventId } from './stable-id.js'

export interface HistoricalBatch {
  readonly environmentId: number
  readonly batchId: string
  /** Already validated and normalised: nothing is refused once writing starts. */
  readonly events: readonly CapturedEvent[]
  readonly metadata: JsonObject
}

export interface CommittedImport {
  readonly ledgerRevision: bigint
  readonly position: Position
  readonly data: ImportCommittedData
}

type Planned = { readonly type: string; readonly data: JsonObject; readonly weight: number }

/** The import stream's records: ImportStarted, the chunks in order, ImportCompleted. */
const planImport = async (batch: HistoricalBatch): Promise<Planned[]> => {
  const { environmentId, batchId, events, metadata } = batch
  const metadataBytes = Buffer.byteLength(JSON.stringify(metadata))
  const digest = createHash('sha256')
  const weights = await weighSliced(events, (json) => digest.update(json).update('\n'))
  const sha256 = digest.digest('hex')
  const emptyChunk = Buffer.byteLength(JSON.stringify({ seq: 0, events: [] })) + 12
  const chunkWrapper = weightOf(IMPORT_CHUNK_APPENDED, emptyChunk, metadataBytes)
  const packs = packEvents(events, weights, chunkWrapper)
  const counts = { environmentId, batchId, chunkCount: packs.length, recordCount: events.length, sha256 }
  const started: ImportStartedData = { ...counts, historicalMigration: true }
  const completed: ImportCompletedData = counts
  const weighted = (type: string, data: JsonObject): Planned =>
    ({ type, data, weight: weightOf(type, Buffer.byteLength(JSON.stringify(data)), metadataBytes) })
  return [
    weighted(IMPORT_STARTED, started),
    ...packs.map((pack, seq): Planned => {
      const data: ImportChunkAppendedData = { seq, events: pack.events }
      return { type: IMPORT_CHUNK_APPENDED, data, weight: chunkWrapper + pack.bytes - 1 }
    }),
    weighted(IMPORT_COMPLETED, completed),
  ]
}

/** Retries an append whose outcome is unknown; the ids make a landed retry harmless. */
const appendWithRetry = async (log: EventLog, stream: string, events: EventData[], expected: bigint | 'no_stream') => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await log.append(stream, events, { expectedRevision: expected })
    } catch (error) {
      if (!(error instanceof Unavailable)) throw error
      if (attempt >= 3) throw unavailable()
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
    }
  }
}

const ledgerHead = async (log: EventLog, stream: string): Promise<bigint | 'no_stream'> => {
  try {
    for await (const last of log.readStream(stream, { direction: 'backwards', maxCount: 1 })) return last.revision
  } catch (error) {
    if (!(error instanceof StreamNotFound)) throw error
  }
  return 'no_stream'
}

/**
 * Commits a written import on the environment's ledger with the ledger's exact revision. A
 * conflict means another import committed first: read the new head and commit after it.
 */
const commitImport = async (log: EventLog, data: ImportCommittedData, metadata: JsonObject): Promise<CommittedImport> => {
  const stream = importLogStream(data.environmentId)
  const event: EventData = { id: stableEventId(`${data.importStream}:committed`), type: IMPORT_COMMITTED, data, metadata }
  for (let attempt = 1; ; attempt++) {
    const expected = await ledgerHead(log, stream)
    try {
      const result = await appendWithRetry(log, stream, [event], expected)
      return { ledgerRevision: result.nextExpectedRevision, position: result.position, data }
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion) || attempt >= 100) throw error
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5))
    }
  }
}

/**
 * Commits an import only if the ledger holds no commit of its batch key yet: the check and the
 * append are one step, since the append expects the revision the check read up to. Null when
 * another writer committed the key first.
 */
const commitOnce = async (log: EventLog, ledger: ImportLedger, data: ImportCommittedData, metadata: JsonObject): Promise<CommittedImport | null> => {
  const stream = importLogStream(data.environmentId)
  const event: EventData = { id: stableEventId(`${data.importStream}:committed`), type: IMPORT_COMMITTED, data, metadata }
  for (let attempt = 1; ; attempt++) {
    await ledger.refresh(log)
    if (ledger.has(batchKey(data.batchId))) return null
    try {
      const result = await appendWithRetry(log, stream, [event], ledger.head)
      await ledger.refresh(log)
      return { ledgerRevision: result.nextExpectedRevision, position: result.position, data }
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion) || attempt >= 100) throw error
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5))
    }
  }
}

/**
 * Writes a historical-migration batch to its own import stream, in appends that each stay within
 * the budget (the first with `no_stream`, the next ones with the exact revision), then commits it
 * on the ledger. Resolves once the commit is durable. Given the ledger as its caller last read
 * it, the commit is made only if no batch with the same key was committed (null otherwise).
 */
export async function importHistorical(log: EventLog, batch: HistoricalBatch): Promise<CommittedImport>
export async function importHistorical(log: EventLog, batch: HistoricalBatch, ledger: ImportLedger | undefined): Promise<CommittedImport | null>
export async function importHistorical(log: EventLog, batch: HistoricalBatch, ledger?: ImportLedger): Promise<CommittedImport | null> {
  const stream = importStream(batch.environmentId, batch.batchId)
  const planned = await planImport(batch)
  let expected: bigint | 'no_stream' = 'no_stream'
  let revision = 0
  for (const group of groupAppends(planned)) {
    const events = group.map(({ type, data }): EventData => ({ id: stableEventId(`${stream}:${revision++}`), type, data, metadata: batch.metadata }))
    expected = (await appendWithRetry(log, stream, events, expected)).nextExpectedRevision
  }
  const started = planned[0]!.data as ImportStartedData
  const committed: ImportCommittedData = {
    environmentId: batch.environmentId,
    batchId: batch.batchId,
    importStream: stream,
    firstRevision: 0,
    lastRevision: revision - 1,
    recordCount: started.recordCount,
    sha256: started.sha256,
  }
  return ledger ? commitOnce(log, ledger, committed, batch.metadata) : commitImport(log, committed, batch.metadata)
}
