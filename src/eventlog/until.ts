import { comparePositions, type EventLog, type Position, type SubscribeOptions, type Subscription, type SubscriptionItem } from './port.js'

/**
 * How far a limited log reaches. The limit only ever moves forwards; subscriptions parked at the
 * old limit carry on when it is raised.
 */
export class LogLimit {
  private wakers: Array<() => void> = []

  constructor(private current: Position) {}

  get position(): Position {
    return this.current
  }

  raise(position: Position): void {
    if (comparePositions(position, this.current) <= 0) return
    this.current = position
    const wakers = this.wakers
    this.wakers = []
    for (const wake of wakers) wake()
  }

  /** Resolves the next time the limit moves. */
  moved(): { promise: Promise<void>; cancel: () => void } {
    let wake: () => void = () => undefined
    const promise = new Promise<void>((resolve) => { wake = resolve })
    this.wakers.push(wake)
    return { promise, cancel: () => wake() }
  }
}

/**
 * The log as it stood at `limit`: subscriptions deliver nothing past it, then report the limit
 * as covered and themselves as caught up, and wait until the limit is raised or they are ended.
 * Each stretch is a fresh catch-up subscription from where the last one stopped, so its
 * `caughtUp` proves that every event up to a limit at or before the head has been delivered.
 * Everything else passes through, so a projector that reads other streams while it folds (a
 * committed import's chunks) still finds them. Limits must lie at or before the head.
 */
export const logUpTo = (log: EventLog, limit: LogLimit): EventLog => ({
  kind: log.kind,
  append: (stream, events, options) => log.append(stream, events, options),
  readStream: (stream, options) => log.readStream(stream, options),
  readAll: (options) => log.readAll(options),
  headPosition: async () => {
    const head = await log.headPosition()
    return head && comparePositions(head, limit.position) > 0 ? limit.position : head
  },
  deleteStream: (stream, options) => log.deleteStream(stream, options),
  tombstoneStream: (stream, options) => log.tombstoneStream(stream, options),
  close: () => log.close(),
  subscribeToAll: (options = {}) => limitedSubscription(log, limit, options),
})

/** A fixed cutoff: the log as it stood at `until`. */
export const logUntil = (log: EventLog, until: Position): EventLog => logUpTo(log, new LogLimit(until))

const limitedSubscription = (log: EventLog, limit: LogLimit, options: SubscribeOptions): Subscription => {
  let ended = false
  let inner: Subscription | null = null
  let parked: { cancel: () => void } | null = null

  async function* items(): AsyncGenerator<SubscriptionItem> {
    let from = options.fromPosition ?? 'start'
    while (!ended) {
      const target = limit.position
      const waiting = limit.moved()
      parked = waiting
      const behind = from === 'start' || (from !== 'end' && comparePositions(from, target) < 0)
      if (behind) {
        inner = log.subscribeToAll({ ...options, fromPosition: typeof from !== 'string' && from.commit < 0n ? 'start' : from })
        for await (const item of inner) {
          if (item.kind === 'caughtUp') break
          const at = item.kind === 'event' ? item.event.position : item.position
          if (comparePositions(at, target) > 0 || (item.kind === 'checkpoint' && comparePositions(at, target) === 0)) break
          yield item
          from = at
        }
        await inner.unsubscribe()
        inner = null
        if (ended) return
        if (target.commit >= 0n) yield { kind: 'checkpoint', position: target }
        from = target
      }
      yield { kind: 'caughtUp' }
      if (comparePositions(limit.position, target) === 0) await waiting.promise
      else waiting.cancel()
    }
  }

  return {
    [Symbol.asyncIterator]: () => items(),
    async unsubscribe() {
      ended = true
      parked?.cancel()
      await inner?.unsubscribe()
    },
  }
}
