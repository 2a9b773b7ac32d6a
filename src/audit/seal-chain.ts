import { createHash } from 'node:crypto'
import { canonicalJson } from '../kernel/canonical-json.js'
import type { JsonObject, RecordedEvent } from '../eventlog/port.js'

/** The stream that holds seals, and their event type. */
export const SEAL_STREAM = 'seal-log'
export const LOG_SEALED = 'LogSealed'

/** Bytes of each event's hash kept in a seal, so a seal can say which event changed. */
export const FINGERPRINT_BYTES = 6
/** Events a single seal covers at most, so it stays well under the 1 MiB append limit. */
export const EVENTS_PER_SEAL = 100_000

export interface LogSealedData extends JsonObject {
  /** Events covered, counted from the start of the log: the first `eventCount` events, seals included. */
  eventCount: number
  /** Position (`commit/prepare`) of the last covered event. */
  through: string
  /** The chain's value after the last covered event (hex SHA-256): what an auditor signs off. */
  chainSha256: string
  /** Events covered by earlier seals; this seal's fingerprints are those of events fromCount..eventCount-1. */
  fromCount: number
  /** Base64 of the first FINGERPRINT_BYTES of each event hash of that part, in log order. */
  fingerprints: string
  algorithm: 'sha256-chain-v1'
}

/**
 * What an event's hash covers: its stream and revision, id, type, data and metadata, as
 * canonical JSON, so the same event read from either adapter hashes the same. The time the log
 * recorded it and its position are left out: a migrated log keeps its events, not its positions.
 */
export const eventHash = (event: RecordedEvent): Buffer =>
  createHash('sha256').update(canonicalJson({
    stream: event.streamId, revision: event.revision.toString(), id: event.id, type: event.type,
    data: event.data, metadata: event.metadata ?? null,
  })).digest()

export const CHAIN_START = '0'.repeat(64)

/** chain(n) = SHA-256(chain(n-1) as hex ‖ hash(event n) as hex). */
export const extendChain = (chain: string, hash: Buffer): string =>
  createHash('sha256').update(chain).update(hash.toString('hex')).digest('hex')

export const fingerprintOf = (hash: Buffer): Buffer => hash.subarray(0, FINGERPRINT_BYTES)
