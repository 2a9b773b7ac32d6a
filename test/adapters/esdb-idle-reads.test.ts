import t from 'tap'
import { EventEmitter } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import type { EventStoreDBClient } from '@eventstore/db-client'
import { EsdbEventLog } from '../../src/eventlog/esdb.js'
import { comparePositions, type Position, type SubscriptionItem } from '../../src/eventlog/port.js'

// The EventStoreDB adapter over a fake client that answers reads from an array and whose
// subscriptions say they are caught up and then stay silent, as a live server's do while nothing
// is appended: what the log reads while its subscriptions are idle, counted at the client.

interface FakeRecord {
  readonly streamId: string
  readonly id: string
  readonly revision: bigint
  readonly type: string
  readonly data: unknown
  readonly metadata: unknown
  readonly created: Date
  readonly position: Position
}

class SilentSubscription extends EventEmitter {
  readonly readableLength = 0
  constructor() {
    super()
    setImmediate(() => this.emit('caughtUp'))
  }

  pause(): void {}
  resume(): void {}
  isPaused(): boolean { return false }
  async unsubscribe(): Promise<void> {}
}

const fakeServer = () => {
  const log: FakeRecord[] = []
  const reads: { direction: string; maxCount: number }[] = []
  const append = (type: string, streamId: string): Position => {
    const n = BigInt(log.length + 1)
    const position = { commit: n * 100n, prepare: n * 100n }
    log.push({ streamId, id: `id-${n}`, revision: 0n, type, data: {}, metadata: undefined, created: new Date(), position })
    return position
  }
  const client = {
    readAll(options: { fromPosition?: unknown; direction?: string; maxCount?: number | bigint }) {
      const direction = options.direction ?? 'forwards'
      const maxCount = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER)
      reads.push({ direction, maxCount })
      const from = options.fromPosition
      let list: FakeRecord[]
      if (direction === 'backwards') {
        list = [...log].reverse().filter((record) => typeof from !== 'object' || comparePositions(record.position, from as Position) < 0)
      } else {
        list = log.filter((record) => typeof from !== 'object' || comparePositions(record.position, from as Position) >= 0)
      }
      const page = list.slice(0, maxCount).map((event) => ({ event }))
      return Object.assign((async function* () { yield* page })(), { cancel: async () => {} })
    },
    subscribeToAll: () => new SilentSubscription(),
    dispose: async () => {},
  }
  return { client: client as unknown as EventStoreDBClient, reads, append }
}

const newestReads = (reads: { direction: string; maxCount: number }[]): number =>
  reads.filter((read) => read.direction === 'backwards' && read.maxCount === 1).length

/** Subscriptions opened one after another from the head, then left idle; the reads made meanwhile. */
const idle = async (subscriptions: number, idleMs: number) => {
  const server = fakeServer()
  const head = server.append('ThingHappened', 'things-1')
  const log = new EsdbEventLog(server.client)
  const open = []
  for (let i = 0; i < subscriptions; i++) {
    const subscription = log.subscribeToAll({ fromPosition: head, filter: { streamPrefixes: [`things-${i}`] } })
    // Iterated on in the background, as a projection runner does: an idle subscription waits inside its loop.
    await new Promise<void>((caughtUp) => {
      void (async () => { for await (const item of subscription) if (item.kind === 'caughtUp') caughtUp() })()
    })
    open.push(subscription)
    await sleep(30)
  }
  const before = { client: newestReads(server.reads), counted: { ...log.readsIssued } }
  await sleep(idleMs)
  const after = { client: newestReads(server.reads), counted: { ...log.readsIssued } }
  for (const subscription of open) await subscription.unsubscribe()
  await log.close()
  return {
    newest: after.client - before.client,
    counted: after.counted.head - before.counted.head,
    scans: after.counted.quietScan - before.counted.quietScan,
  }
}

t.test('given 15 idle subscriptions, then the log reads its head as often as for one', async (t) => {
  const one = await idle(1, 2_000)
  const fifteen = await idle(15, 2_000)
  t.ok(one.newest >= 3, `one subscription: ${one.newest} head reads in 2 s`)
  t.ok(fifteen.newest <= one.newest + 2, `fifteen subscriptions: ${fifteen.newest} head reads in 2 s, against ${one.newest} for one`)
  t.equal(fifteen.counted, fifteen.newest, 'readsIssued.head counts what the client was asked')
  t.equal(fifteen.scans, 0, 'no quiet scan while the head does not move')
})

t.test('given an idle filtered subscription, when records it skips are appended, then it checkpoints at the new head', async (t) => {
  const server = fakeServer()
  const start = server.append('ThingHappened', 'things-1')
  const log = new EsdbEventLog(server.client)
  const subscription = log.subscribeToAll({ fromPosition: start, filter: { streamPrefixes: ['things-'] } })
  const items: SubscriptionItem[] = []
  let head: Position | undefined
  const timer = setTimeout(() => { void subscription.unsubscribe() }, 5_000)
  for await (const item of subscription) {
    items.push(item)
    if (item.kind === 'caughtUp') {
      server.append('Unwanted', 'other-1')
      head = server.append('Unwanted', 'other-2')
    }
    if (item.kind === 'checkpoint' && head && comparePositions(item.position, head) >= 0) break
  }
  clearTimeout(timer)
  await subscription.unsubscribe()
  await log.close()
  t.same(items.map((item) => item.kind), ['caughtUp', 'checkpoint'], 'one checkpoint, at the head')
  t.ok(log.readsIssued.quietScan >= 1, 'after a quiet scan')
})

t.test('given a subscription that accepts the newest record, then no checkpoint passes it before it is delivered', async (t) => {
  const server = fakeServer()
  const start = server.append('ThingHappened', 'things-1')
  const log = new EsdbEventLog(server.client)
  const subscription = log.subscribeToAll({ fromPosition: start, filter: { streamPrefixes: ['things-'] } })
  const items: SubscriptionItem[] = []
  const timer = setTimeout(() => { void subscription.unsubscribe() }, 1_500)
  for await (const item of subscription) {
    items.push(item)
    if (item.kind === 'caughtUp') server.append('ThingHappened', 'things-2')
  }
  clearTimeout(timer)
  await log.close()
  t.same(items.map((item) => item.kind), ['caughtUp'], 'the silent fake never delivers it, so nothing follows')
})
