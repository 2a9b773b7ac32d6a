import { IDLE_FIRST_MS, IDLE_MAX_MS, nextIdleDelay, quietIn, type ScanRecord, type ScanWindow } from './esdb-quiet-head.js'
import { comparePositions, type Position } from './port.js'

/** The two reads the watcher makes; the adapter counts them. */
export interface HeadReads {
  /** The position of the newest record of `$all`, system records included. */
  newest(): Promise<Position | null>
  /**
   * `$all` forwards from `from` (inclusive; the start when null), at most `limit + 1` records,
   * stopping at the first record past `head`.
   */
  scan(from: Position | null, head: Position, limit: number): Promise<ScanWindow>
}

export interface Timers {
  set(run: () => void, ms: number): unknown
  clear(handle: unknown): void
}

const realTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
}

/** An idle subscription's question: when is the head a safe checkpoint after `last`? */
export interface IdleQuestion {
  /** The last position delivered (event or checkpoint); null before any. */
  readonly last: Position | null
  /** Whether the subscription's filter accepts the record. */
  matches(record: ScanRecord): boolean
  /** How many records the quiet check may look at before it gives up on this head. */
  readonly limit: number
  /** The subscription has just had something delivered: check soon again. */
  readonly afterActivity: boolean
}

export interface IdleWait {
  /** The head, once nothing the subscription accepts lies between `last` and it; rejects when a read fails. */
  readonly checkpoint: Promise<Position>
  /** Stops waiting (something was delivered); the promise then never settles. */
  cancel(): void
}

interface Waiter {
  readonly question: IdleQuestion
  /** The head this waiter was given a verdict on, so the same head is not scanned for it twice. */
  decidedAt: Position | null
  resolve(position: Position): void
  reject(error: unknown): void
}

const same = (a: Position | null, b: Position | null): boolean =>
  a === null ? b === null : b !== null && comparePositions(a, b) === 0

const behind = (last: Position | null, head: Position): boolean => last === null || comparePositions(head, last) > 0

/**
 * One poll of `$all`'s head for every idle subscription of a log, so that the reads an idle
 * deployment makes do not grow with its number of projections. While at least one subscription
 * waits, the watcher reads the newest position: soon after activity, then backing off to a ceiling
 * while nothing changes. When it sees the same head twice in a row (giving the subscriptions' own
 * streams time to deliver what lies before it), it reads the records between the oldest waiting
 * subscription's last delivery and the head once, and every waiting subscription judges that one
 * window with its own filter. A subscription with nothing it accepts in its part of the window gets
 * the head as a checkpoint. With no subscription waiting, the watcher reads nothing.
 */
export class HeadWatcher {
  private readonly waiters = new Set<Waiter>()
  private delay = IDLE_FIRST_MS
  private timer: unknown
  private dueAt = 0
  private running = false
  private closed = false
  /** The head read by the last round, which the next must read again before anything is scanned. */
  private seen: Position | null = null

  constructor(
    private readonly reads: HeadReads,
    private readonly options: { firstMs?: number; maxMs?: number; timers?: Timers; now?: () => number } = {},
  ) {
    this.delay = this.firstMs
  }

  private get firstMs(): number { return this.options.firstMs ?? IDLE_FIRST_MS }
  private get maxMs(): number { return this.options.maxMs ?? IDLE_MAX_MS }
  private get timers(): Timers { return this.options.timers ?? realTimers }
  private now(): number { return (this.options.now ?? Date.now)() }

  wait(question: IdleQuestion): IdleWait {
    let waiter!: Waiter
    const checkpoint = new Promise<Position>((resolve, reject) => {
      waiter = { question, decidedAt: null, resolve, reject }
    })
    // The subscription races this promise with its own deliveries; a rejection it no longer
    // awaits must not surface as unhandled.
    checkpoint.catch(() => undefined)
    if (this.closed) return { checkpoint, cancel: () => undefined }
    this.waiters.add(waiter)
    if (question.afterActivity) this.soon()
    else this.schedule()
    return {
      checkpoint,
      cancel: () => {
        this.waiters.delete(waiter)
        if (this.waiters.size === 0) this.stop()
      },
    }
  }

  /** The log has just moved (an append through this process): look again soon. */
  nudge(): void {
    if (this.waiters.size > 0) this.soon()
    else this.delay = this.firstMs
  }

  close(): void {
    this.closed = true
    this.waiters.clear()
    this.stop()
  }

  private soon(): void {
    this.delay = this.firstMs
    if (this.timer !== undefined && this.dueAt > this.now() + this.firstMs) this.stop()
    this.schedule()
  }

  private schedule(): void {
    if (this.timer !== undefined || this.running || this.closed || this.waiters.size === 0) return
    this.dueAt = this.now() + this.delay
    this.timer = this.timers.set(() => {
      this.timer = undefined
      void this.round()
    }, this.delay)
  }

  private stop(): void {
    if (this.timer === undefined) return
    this.timers.clear(this.timer)
    this.timer = undefined
  }

  private backOff(): void {
    this.delay = nextIdleDelay(this.delay, this.maxMs)
  }

  private async round(): Promise<void> {
    this.running = true
    try {
      await this.check()
    } catch (error) {
      // A failed read ends every current wait with it, as a subscription's own read would have.
      for (const waiter of this.waiters) waiter.reject(error)
      this.waiters.clear()
      this.seen = null
      this.delay = this.firstMs
    } finally {
      this.running = false
      this.schedule()
    }
  }

  private async check(): Promise<void> {
    const head = await this.reads.newest()
    const open = head === null ? [] : [...this.waiters].filter((waiter) => behind(waiter.question.last, head))
    if (head === null || open.length === 0) {
      this.backOff()
      return
    }
    if (!same(head, this.seen)) {
      this.seen = head
      this.delay = this.firstMs
      return
    }
    const undecided = open.filter((waiter) => !same(waiter.decidedAt, head))
    if (undecided.length === 0) {
      this.backOff()
      return
    }
    let from: Position | null = undecided[0]!.question.last
    let limit = 0
    for (const { question } of undecided) {
      if (from !== null && (question.last === null || comparePositions(question.last, from) < 0)) from = question.last
      limit = Math.max(limit, question.limit)
    }
    const window = await this.reads.scan(from, head, limit)
    let unknown = false
    for (const waiter of undecided) {
      if (!this.waiters.has(waiter)) continue
      const verdict = quietIn(window, waiter.question.last, head, waiter.question.limit, (record) => waiter.question.matches(record))
      if (verdict === 'unknown') {
        unknown = true
        continue
      }
      waiter.decidedAt = head
      if (verdict === 'quiet') {
        this.waiters.delete(waiter)
        waiter.resolve(head)
      }
    }
    // Those the window fell short of are scanned again from their own position, without waiting long.
    if (unknown) this.delay = this.firstMs
  }
}
