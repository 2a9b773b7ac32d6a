import type { RecordedEvent } from './port.js'
import { toRecordedEvent, type EventRow } from './sqlite-schema.js'

export interface RecentEventsOptions {
  /** Characters of event data kept, about (default 4 MiB). */
  readonly maxChars?: number
  /**
   * How long a quiet cache keeps its events before letting them go (default 1 s: sooner than a
   * quiet projection thread collects its heap).
   */
  readonly idleMs?: number
}

/**
 * The log events the subscriptions of one log connection decoded last, by position. Projections
 * of one thread read the same events at about the same time, so each event's JSON is parsed once
 * for all of them; they only read what they get. An event never changes once at its position, and
 * the event id is checked too. The oldest go first, and all of them once nobody has asked for a while.
 */
export class RecentEvents {
  private readonly kept = new Map<bigint, { readonly event: RecordedEvent; readonly size: number }>()
  private chars = 0
  private readonly maxChars: number
  private readonly idleMs: number
  private lastUse = 0
  private sweeper: NodeJS.Timeout | null = null

  constructor(options: RecentEventsOptions = {}) {
    this.maxChars = options.maxChars ?? 4 * 1024 * 1024
    this.idleMs = options.idleMs ?? 1000
  }

  decode(row: EventRow): RecordedEvent {
    this.lastUse = Date.now()
    const found = this.kept.get(row.global_position)
    if (found !== undefined && found.event.id === row.event_id) return found.event
    const event = toRecordedEvent(row)
    const size = sizeOf(row)
    if (size > this.maxChars) return event
    while (this.chars + size > this.maxChars) this.evictOldest()
    this.kept.set(row.global_position, { event, size })
    this.chars += size
    this.sweeper ??= setInterval(() => this.sweep(), this.idleMs / 2).unref()
    return event
  }

  /** How many events are kept. */
  get size(): number {
    return this.kept.size
  }

  clear(): void {
    this.kept.clear()
    this.chars = 0
    if (this.sweeper) clearInterval(this.sweeper)
    this.sweeper = null
  }

  private sweep(): void {
    if (Date.now() - this.lastUse >= this.idleMs) this.clear()
  }

  private evictOldest(): void {
    const [position, { size }] = this.kept.entries().next().value!
    this.kept.delete(position)
    this.chars -= size
  }
}

const sizeOf = (row: EventRow): number => row.data.length + (row.metadata?.length ?? 0) + 64
