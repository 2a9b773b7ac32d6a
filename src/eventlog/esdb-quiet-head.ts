import { comparePositions, type Position } from './port.js'

/** What the check needs to know of a record of `$all`. */
export interface QuietRecord {
  readonly position: Position
  readonly matches: boolean
}

/**
 * Whether `$all` holds no record that the subscription's filter accepts after `after` (exclusive)
 * and up to `head` (inclusive): then every matching event up to the head has been delivered and
 * the head is a safe checkpoint. `records` reads `$all` forwards from `after` (inclusive, as the
 * server reads); at most `limit` records are looked at, and a longer window answers false.
 */
export const quietUpTo = async (
  records: AsyncIterable<QuietRecord>, after: Position | null, head: Position, limit: number,
): Promise<boolean> => {
  let seen = 0
  for await (const record of records) {
    if (after && comparePositions(record.position, after) <= 0) continue
    if (comparePositions(record.position, head) > 0) return true
    if (record.matches) return false
    if (++seen >= limit) return false
  }
  return true
}

/** Checks while idle: soon after the last activity, then less often while nothing changes. */
export const IDLE_FIRST_MS = 50
export const IDLE_MAX_MS = 400

export const nextIdleDelay = (delay: number): number => Math.min(IDLE_MAX_MS, delay * 2)
