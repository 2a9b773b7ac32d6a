import type { RecordedEvent } from './port.js'
import { toRecordedEvent, type EventRow } from './sqlite-schema.js'

/** Characters of decoded rows' data kept, about: a few pages of subscriptions reading in step. */
const KEPT_CHARS = 8 * 1024 * 1024

/**
 * Log rows decoded once for every subscription of one connection. The subscriptions of one
 * projection thread read the same rows at about the same time, and parsing a row's JSON is most
 * of what reading it costs; the recorded events are shared, and nothing changes them. The
 * oldest rows go first once their data passes `KEPT_CHARS`; a subscription that falls further
 * behind than that decodes its rows itself.
 */
export class DecodedRows {
  private readonly kept = new Map<bigint, { readonly event: RecordedEvent; readonly chars: number }>()
  private chars = 0

  constructor(private readonly limit = KEPT_CHARS) {}

  decode(row: EventRow): RecordedEvent {
    const found = this.kept.get(row.global_position)
    if (found !== undefined) return found.event
    const event = toRecordedEvent(row)
    const chars = row.data.length + (row.metadata?.length ?? 0)
    if (chars > this.limit) return event
    this.kept.set(row.global_position, { event, chars })
    this.chars += chars
    for (const [position, entry] of this.kept) {
      if (this.chars <= this.limit) break
      this.kept.delete(position)
      this.chars -= entry.chars
    }
    return event
  }

  clear(): void {
    this.kept.clear()
    this.chars = 0
  }
}
