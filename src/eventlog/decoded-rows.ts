import type { RecordedEvent } from './port.js'
import { toRecordedEvent, type EventRow } from './sqlite-schema.js'

/** Characters of decoded rows' data kept at most, about: a few pages of subscriptions reading in step. */
const KEPT_CHARS = 8 * 1024 * 1024

/** One subscription's place in the log, as far as the rows it has been given. */
export interface RowReader {
  /** Every row at or before `position` has been given to this reader (or was not for it). */
  passed(position: bigint): void
  close(): void
}

/**
 * Log rows decoded once for every subscription of one connection. The subscriptions of one
 * projection thread read the same rows at about the same time, and parsing a row's JSON is most
 * of what reading it costs; the recorded events are shared, and nothing changes them. A row is
 * kept until every open reader has passed it, so readers that have caught up keep nothing; past
 * `limit` characters of data the oldest rows go first, and a reader that falls further behind
 * than that decodes its rows itself.
 */
export class DecodedRows {
  /** By log position (as a number: positions stay far below 2^53, and number keys are cheap). */
  private readonly kept = new Map<number, { readonly event: RecordedEvent; readonly chars: number }>()
  /** Where each open reader is, as a number like the keys. */
  private readonly readers = new Set<{ at: number }>()
  private chars = 0

  constructor(private readonly limit = KEPT_CHARS) {}

  decode(row: EventRow): RecordedEvent {
    // One reader has nobody to share with: the common case of a process with one subscription.
    if (this.readers.size < 2) return toRecordedEvent(row)
    const position = Number(row.global_position)
    const found = this.kept.get(position)
    if (found !== undefined) return found.event
    const event = toRecordedEvent(row)
    const chars = row.data.length + (row.metadata?.length ?? 0)
    if (chars > this.limit) return event
    this.kept.set(position, { event, chars })
    this.chars += chars
    this.evict(() => this.chars > this.limit)
    return event
  }

  /** A reader starting at `position`: until it passes them, rows after it are kept for it. */
  reader(position: bigint): RowReader {
    const place = { at: Number(position) }
    this.readers.add(place)
    return {
      passed: (at) => {
        place.at = Number(at)
        if (this.kept.size === 0) return
        let slowest = Number.POSITIVE_INFINITY
        for (const reader of this.readers) slowest = Math.min(slowest, reader.at)
        this.evict((kept) => kept <= slowest)
      },
      close: () => {
        if (!this.readers.delete(place)) return
        if (this.readers.size < 2) this.clear()
      },
    }
  }

  /** Lets go of the oldest rows while `done` says so of the oldest. */
  private evict(done: (position: number) => boolean): void {
    for (const [position, entry] of this.kept) {
      if (!done(position)) return
      this.kept.delete(position)
      this.chars -= entry.chars
    }
  }

  clear(): void {
    this.kept.clear()
    this.chars = 0
  }
}
