import { comparePositions, type Position } from './port.js'

/** A record of `$all` as a quiet check reads it: enough to apply a subscription's filter. */
export interface ScanRecord {
  readonly position: Position
  readonly type: string
  readonly streamId: string
}

/**
 * Records of `$all` read forwards from some position. `complete` when the read went past the head
 * it was asked about or reached the end of the log, so no record is missing up to that head.
 */
export interface ScanWindow<R = ScanRecord> {
  readonly records: readonly R[]
  readonly complete: boolean
}

/**
 * The verdict of one subscription on a window read for several: `quiet` (the head is a safe
 * checkpoint), `busy` (a matching record, or more than `limit` records, lie before the head), or
 * `unknown` when the window stops before the head without reaching it (it was read for a
 * subscription further behind, and the count ran out first).
 */
export type QuietVerdict = 'quiet' | 'busy' | 'unknown'

/**
 * Whether `$all` holds no record that the subscription's filter accepts after `after` (exclusive)
 * and up to `head` (inclusive): then every matching event up to the head has been delivered and
 * the head is a safe checkpoint. At most `limit` records after `after` are looked at, and a longer
 * window is `busy`.
 */
export const quietIn = <R extends { readonly position: Position }>(
  window: ScanWindow<R>, after: Position | null, head: Position, limit: number, matches: (record: R) => boolean,
): QuietVerdict => {
  let seen = 0
  for (const record of window.records) {
    if (after && comparePositions(record.position, after) <= 0) continue
    if (comparePositions(record.position, head) > 0) return 'quiet'
    if (matches(record)) return 'busy'
    if (++seen >= limit) return 'busy'
  }
  return window.complete ? 'quiet' : 'unknown'
}

/** Checks while idle: soon after the last activity, then less often while nothing changes. */
export const IDLE_FIRST_MS = 50
export const IDLE_MAX_MS = 400

export const nextIdleDelay = (delay: number, max = IDLE_MAX_MS): number => Math.min(max, delay * 2)
