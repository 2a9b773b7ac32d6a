import type { ActualRevision, ExpectedRevision } from './port.js'

/** What the log knows about a stream before an append. `lastRevision` is -1n when absent. */
export interface StreamState {
  readonly lastRevision: bigint
  readonly softDeleted: boolean
  readonly tombstoned: boolean
}

export type AppendDecision =
  | { readonly kind: 'write'; readonly firstRevision: bigint; readonly undelete: boolean }
  | { readonly kind: 'idempotent'; readonly lastRevision: bigint }
  | { readonly kind: 'wrong_expected_version'; readonly actual: ActualRevision }
  | { readonly kind: 'stream_deleted' }

export interface StoredIds {
  /** The id of the event stored at this revision of the stream, if any. */
  idAt(revision: bigint): string | undefined
}

/**
 * EventStoreDB's commit check, restated: tombstones refuse everything; an exact or `no_stream`
 * expectation below the current revision is an idempotent retry when the incoming ids equal the
 * stored ones from the next revision on, a conflict when the first differs (except `no_stream` on
 * a soft-deleted stream, which recreates it), and a conflict ("corrupted idempotency") when a later
 * one differs. `any` and `stream_exists` never recognise a retry: EventStoreDB does only while
 * an in-memory cache remembers the ids, so nothing may rely on it, and the embedded log writes
 * such a retry again, as the server does once its cache has forgotten.
 */
export const decideAppend = (
  state: StreamState, expected: ExpectedRevision, ids: readonly string[], stored: StoredIds,
): AppendDecision => {
  if (state.tombstoned) return { kind: 'stream_deleted' }
  const current = state.lastRevision
  const actual: ActualRevision = current < 0n ? 'no_stream' : current
  const write: AppendDecision = { kind: 'write', firstRevision: current + 1n, undelete: state.softDeleted }
  const conflict: AppendDecision = { kind: 'wrong_expected_version', actual }

  if (expected === 'any') return write
  if (expected === 'stream_exists') {
    if (state.softDeleted) return { kind: 'stream_deleted' }
    return current < 0n ? conflict : write
  }

  const expectedRevision = expected === 'no_stream' ? -1n : expected
  if (expectedRevision === current) return write
  if (expectedRevision > current) return conflict
  const match = matchesFrom(expectedRevision + 1n, ids, stored)
  if (match === 'all') return { kind: 'idempotent', lastRevision: expectedRevision + BigInt(ids.length) }
  if (match === 'none' && expected === 'no_stream' && state.softDeleted) return write
  return conflict
}

const matchesFrom = (start: bigint, ids: readonly string[], stored: StoredIds): 'all' | 'none' | 'partial' => {
  for (let k = 0; k < ids.length; k++) {
    if (stored.idAt(start + BigInt(k)) !== ids[k]) return k === 0 ? 'none' : 'partial'
  }
  return 'all'
}

/**
 * Whether a delete or tombstone with this expectation may proceed (no idempotency for deletes).
 * A soft delete needs events to delete: EventStoreDB refuses it on a never-written stream even
 * with `any`. `stream_exists` is refused before this is asked (see DeleteOptions).
 */
export const deleteAllowed = (state: StreamState, expected: ExpectedRevision, change: 'delete' | 'tombstone'): boolean => {
  const current = state.lastRevision
  if (change === 'delete' && current < 0n) return false
  if (expected === 'any') return true
  if (expected === 'no_stream') return current < 0n
  if (expected === 'stream_exists') return false
  return expected === current
}

/** Deletes take no `stream_exists` (see DeleteOptions); JavaScript callers get a TypeError. */
export const assertDeleteExpectation = (expected: ExpectedRevision): void => {
  if (expected === 'stream_exists') throw new TypeError('deletes take any, no_stream or an exact revision, not stream_exists')
}

/**
 * The size EventStoreDB counts against its maximum append size: data and metadata bytes plus the
 * event type's length in UTF-16 code units, twice (the server counts characters as two bytes).
 */
export const recordSize = (type: string, dataBytes: number, metadataBytes: number): number =>
  dataBytes + metadataBytes + type.length * 2

export const DEFAULT_MAX_APPEND_SIZE = 1_048_576

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Refuses what EventStoreDB would refuse or mangle, before anything is written. */
export const validateEvent = (event: { id: string; type: string; data: unknown }): void => {
  if (!UUID.test(event.id) || /^[0-]+$/.test(event.id)) throw new TypeError(`event id must be a non-empty UUID: ${event.id}`)
  if (event.type === '' || event.type.startsWith('$')) throw new TypeError(`event type must be non-empty and must not start with $: ${event.type}`)
  if (event.data === null || typeof event.data !== 'object' || Array.isArray(event.data)) throw new TypeError('event data must be a JSON object')
}
