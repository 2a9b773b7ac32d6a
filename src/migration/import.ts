import { createHash } from 'node:crypto'
import { environmentStream } from '../accounts/events.js'
import { environmentDecider, type EnvironmentEvent } from '../environments/decider.js'
import { isJsonObject, type EventLog } from '../eventlog/port.js'
import { capture } from '../ingestion/capture.js'
import { CaptureError } from '../http/capture-error.js'
import { ImportLedger } from '../ingestion/import-ledger.js'
import { normaliseEvent } from '../ingestion/normalise.js'
import { stableEventId } from '../ingestion/stable-id.js'
import { readAggregate } from '../kernel/handle-command.js'
import { newUlid } from '../kernel/ids.js'
import { acquireImportLease, importLeaseStream, type ImportLease, type LeaseHolder, type LeaseOptions } from './import-lease.js'

export class MalformedLine extends Error {
  constructor(readonly line: number, why: string) {
    super(`line ${line}: ${why}`)
  }
}

export class UnknownEnvironment extends Error {
  constructor(id: number) {
    super(`no environment ${id} in this log`)
  }
}

export interface ImportOptions {
  readonly log: EventLog
  readonly environmentId: number
  /** Events per historical batch. Default 5000. */
  readonly chunkLines?: number
  /** Called after each chunk with the lines read so far. */
  readonly onChunk?: (progress: ImportProgress) => void
  /** Asked before each chunk: true stops the import there, with every earlier chunk whole. */
  readonly shouldStop?: () => boolean
  /** Told when another run imports the same file, before waiting for it to end. */
  readonly onWait?: (holder: LeaseHolder) => void
  /** The lease's timing, for tests. */
  readonly lease?: Pick<LeaseOptions, 'ttlMs' | 'pollMs'>
}

export interface ImportProgress {
  readonly lines: number
  readonly events: number
  /** Chunks written by this run. */
  readonly written: number
  /** Chunks an earlier run had already committed, skipped. */
  readonly skipped: number
  readonly stopped: boolean
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const MAX_CHUNK_BYTES = 8 * 1024 * 1024

/** The environment's project token, from its own stream. */
const tokenOf = async (log: EventLog, environmentId: number): Promise<string> => {
  const { events } = await readAggregate<EnvironmentEvent>(log, environmentStream(environmentId))
  const state = events.reduce(environmentDecider.evolve, environmentDecider.initialState())
  if (state.status === 'missing') throw new UnknownEnvironment(environmentId)
  return state.apiToken
}

interface Line {
  readonly number: number
  readonly text: string
}

/** A chunk's name: its environment, the number of its first line, and its lines' text. */
export const chunkKey = (environmentId: number, firstLine: number, texts: readonly string[]): string =>
  createHash('sha256').update(`${environmentId}\n${firstLine}\n`).update(texts.join('\n')).digest('hex').slice(0, 32)

/**
 * One line as the batch will carry it: a JSON object that capture keeps (never one it would
 * drop in silence). A line without a UUID gets one named by the chunk and line, so every retry
 * of the chunk carries the same events.
 */
const parseLine = (line: Line, key: string): Record<string, unknown> => {
  let value: unknown
  try {
    value = JSON.parse(line.text)
  } catch (error) {
    throw new MalformedLine(line.number, `not valid JSON (${error instanceof Error ? error.message : 'unreadable'})`)
  }
  if (!isJsonObject(value)) throw new MalformedLine(line.number, 'not a JSON object')
  if (typeof value['uuid'] !== 'string' || !UUID.test(value['uuid'])) value = { ...value, uuid: stableEventId(`${key}:${line.number}`) }
  try {
    const checked = normaliseEvent(value as Record<string, unknown>, { now: 0, nowIso: new Date(0).toISOString(), sentAt: null, sentAtIso: null, ip: null })
    if (!checked.ok) throw new MalformedLine(line.number, `the event would be dropped (${checked.drop})`)
  } catch (error) {
    if (error instanceof CaptureError) throw new MalformedLine(line.number, error.message)
    throw error
  }
  return value as Record<string, unknown>
}

/**
 * Imports NDJSON events into an environment through the historical-migration path of `/batch/`,
 * in order, one batch per chunk of lines. Each chunk is named by its content and place, and a
 * chunk already committed (by an earlier run that was interrupted) is skipped, so running the
 * same file again after any interruption stores every event exactly once. A malformed line stops
 * the import before anything of its chunk is written.
 *
 * Before its first chunk, a run takes the lease named by that chunk's key. A second run of the
 * same file meanwhile waits for the first to end (or to be killed), then finds every chunk
 * committed. The ledger's own check backs this up: no chunk key is ever committed twice, even by
 * a run that lost its lease while paused.
 */
export const importEvents = async (options: ImportOptions, lines: AsyncIterable<string>): Promise<ImportProgress> => {
  const { log, environmentId } = options
  const token = await tokenOf(log, environmentId)
  const ledger = new ImportLedger(environmentId)
  const chunkLines = options.chunkLines ?? 5000
  const progress = { lines: 0, events: 0, written: 0, skipped: 0, stopped: false }
  let lease: ImportLease | null = null
  let chunk: Line[] = []
  let bytes = 0

  /** False when the run was stopped while waiting for another run's lease. */
  const leased = async (key: string): Promise<boolean> => {
    if (lease) return true
    lease = await acquireImportLease(log, importLeaseStream(environmentId, key), {
      ...options.lease,
      ...(options.onWait ? { onWait: options.onWait } : {}),
      ...(options.shouldStop ? { shouldStop: options.shouldStop } : {}),
    })
    return lease !== null
  }

  const flush = async (): Promise<boolean> => {
    if (chunk.length === 0) return true
    const lines = chunk
    chunk = []
    bytes = 0
    const key = chunkKey(environmentId, lines[0]!.number, lines.map((l) => l.text))
    if (!(await leased(key))) {
      progress.lines = lines[0]!.number
      return false
    }
    await ledger.refresh(log)
    if (ledger.has(key)) {
      progress.skipped++
    } else {
      const batch = lines.map((line) => parseLine(line, key))
      const body = Buffer.from(JSON.stringify({ api_key: token, historical_migration: true, batch }))
      const outcome = await capture({ log, resolveToken: () => environmentId }, {
        body, headers: { 'content-type': 'application/json' }, ip: null, batchId: `${key}_${newUlid()}`, maxDecodedBytes: body.length + 1, ledger,
      })
      if (outcome.alreadyCommitted) progress.skipped++
      else progress.written++
    }
    progress.events += lines.length
    options.onChunk?.({ ...progress })
    return true
  }

  try {
    let number = 0
    for await (const text of lines) {
      number++
      progress.lines = number
      if (text.trim() === '') continue
      if (chunk.length === 0 && options.shouldStop?.()) {
        progress.stopped = true
        return { ...progress }
      }
      chunk.push({ number, text })
      bytes += text.length
      if ((chunk.length >= chunkLines || bytes >= MAX_CHUNK_BYTES) && !(await flush())) return { ...progress, stopped: true }
    }
    if (!(await flush())) return { ...progress, stopped: true }
    return { ...progress }
  } finally {
    await (lease as ImportLease | null)?.release()
  }
}
