import { comparePositions, type EventLog, type Position, type Subscription, type SubscriptionItem } from './port.js'

/**
 * The log as it stood at `until`: subscriptions deliver nothing after that position, then report
 * every later position as covered and the subscription as caught up, and stay quiet until they
 * are ended. Everything else passes through, so a projector that reads other streams while it
 * folds (a committed import's chunks) still finds them.
 */
export const logUntil = (log: EventLog, until: Position): EventLog => ({
  kind: log.kind,
  append: (stream, events, options) => log.append(stream, events, options),
  readStream: (stream, options) => log.readStream(stream, options),
  readAll: (options) => log.readAll(options),
  headPosition: async () => {
    const head = await log.headPosition()
    return head && comparePositions(head, until) > 0 ? until : head
  },
  deleteStream: (stream, options) => log.deleteStream(stream, options),
  tombstoneStream: (stream, options) => log.tombstoneStream(stream, options),
  close: () => log.close(),
  subscribeToAll(options): Subscription {
    const inner = log.subscribeToAll(options)
    let ended = false
    let wake: (() => void) | undefined
    async function* items(): AsyncGenerator<SubscriptionItem> {
      for await (const item of inner) {
        if (item.kind === 'event' && comparePositions(item.event.position, until) > 0) break
        if (item.kind === 'checkpoint' && comparePositions(item.position, until) >= 0) break
        if (item.kind === 'caughtUp') break
        yield item
      }
      if (ended) return
      yield { kind: 'checkpoint', position: until }
      yield { kind: 'caughtUp' }
      await new Promise<void>((resolve) => {
        wake = resolve
        if (ended) resolve()
      })
    }
    return {
      [Symbol.asyncIterator]: () => items(),
      async unsubscribe() {
        ended = true
        wake?.()
        await inner.unsubscribe()
      },
    }
  },
})
