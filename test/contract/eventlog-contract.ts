import { setTimeout as sleep } from 'node:timers/promises'
import type { Test } from 'tap'
import { MaxAppendSizeExceeded, StreamDeleted, StreamNotFound, WrongExpectedVersion } from '../../src/eventlog/errors.js'
import { comparePositions, type EventData, type EventLog, type ExpectedRevision, type Position, type RecordedEvent, type SubscriptionItem } from '../../src/eventlog/port.js'
import { newEventId, randomUuid } from '../../src/kernel/ids.js'
import { collect } from '../support/collect.js'

export interface EventLogAdapter {
  readonly name: string
  open(): Promise<EventLog>
  /** Whether the adapter counts append sizes to the byte as EventStoreDB does (else ±2% margins). */
  readonly exactSizes: boolean
  /** The reads the log has sent to its server so far, for adapters that count them (EventStoreDB). */
  readonly readsIssued?: (log: EventLog) => number
}

const event = (type = 'ThingHappened', data: Record<string, unknown> = {}): EventData => ({ id: newEventId(), type, data })
const events = (n: number, type?: string): EventData[] => Array.from({ length: n }, (_, i) => event(type, { i }))

/** Runs the event-log contract against one adapter: the behaviour every event log must share, whatever its engine. */
export const eventLogContract = (t: Test, adapter: EventLogAdapter): void => {
  let log: EventLog
  const unique = (name: string): string => `${name}-${randomUuid().slice(0, 8)}`
  t.before(async () => { log = await adapter.open() })
  t.teardown(async () => { await log.close() })

  const readTypesAndRevisions = async (stream: string) =>
    (await collect(log.readStream(stream))).map((e) => [e.revision, e.data['i'] ?? null])

  t.test('the expected-revision matrix matches EventStoreDB', async (t) => {
    type Outcome = { ok: bigint } | { wev: 'no_stream' | bigint } | 'deleted'
    const setups: Record<string, (stream: string) => Promise<void>> = {
      new: async () => {},
      existing: async (s) => { await log.append(s, events(2)) },
      'soft-deleted': async (s) => { await log.append(s, events(2)); await log.deleteStream(s) },
      tombstoned: async (s) => { await log.append(s, events(2)); await log.tombstoneStream(s) },
    }
    const cases: [setup: string, expected: ExpectedRevision, label: string, outcome: Outcome][] = [
      ['new', 'any', 'any', { ok: 0n }],
      ['new', 'no_stream', 'no_stream', { ok: 0n }],
      ['new', 'stream_exists', 'stream_exists', { wev: 'no_stream' }],
      ['new', 5n, 'exact ahead', { wev: 'no_stream' }],
      ['existing', 'any', 'any', { ok: 2n }],
      ['existing', 'no_stream', 'no_stream', { wev: 1n }],
      ['existing', 'stream_exists', 'stream_exists', { ok: 2n }],
      ['existing', 1n, 'exact correct', { ok: 2n }],
      ['existing', 0n, 'exact stale', { wev: 1n }],
      ['existing', 5n, 'exact ahead', { wev: 1n }],
      ['soft-deleted', 'any', 'any', { ok: 2n }],
      ['soft-deleted', 'no_stream', 'no_stream', { ok: 2n }],
      ['soft-deleted', 'stream_exists', 'stream_exists', 'deleted'],
      ['soft-deleted', 1n, 'exact correct', { ok: 2n }],
      ['soft-deleted', 0n, 'exact stale', { wev: 1n }],
      ['soft-deleted', 5n, 'exact ahead', { wev: 1n }],
      ['tombstoned', 'any', 'any', 'deleted'],
      ['tombstoned', 'no_stream', 'no_stream', 'deleted'],
      ['tombstoned', 'stream_exists', 'stream_exists', 'deleted'],
      ['tombstoned', 1n, 'exact correct', 'deleted'],
      ['tombstoned', 5n, 'exact ahead', 'deleted'],
    ]
    for (const [setup, expected, label, outcome] of cases) {
      const stream = unique(`matrix-${setup}`)
      await setups[setup]!(stream)
      const attempt = log.append(stream, [event()], { expectedRevision: expected })
      const name = `${setup} stream, ${label}`
      if (outcome === 'deleted') {
        await t.rejects(attempt, StreamDeleted, name)
      } else if ('ok' in outcome) {
        t.equal((await attempt).nextExpectedRevision, outcome.ok, name)
      } else {
        const error = await attempt.then(() => null, (e: unknown) => e)
        t.ok(error instanceof WrongExpectedVersion, `${name} is a conflict`)
        if (error instanceof WrongExpectedVersion) {
          t.same([error.streamName, error.expected, error.actual], [stream, expected, outcome.wev], `${name} reports its fields`)
        }
      }
    }
  })

  t.test('a soft-deleted stream reads as missing, and a recreated one shows only its new events', async (t) => {
    const stream = unique('soft')
    await log.append(stream, events(2))
    await log.deleteStream(stream)
    await t.rejects(collect(log.readStream(stream)), StreamNotFound)
    await log.append(stream, [event('ThingHappened', { i: 'new' })])
    t.same(await readTypesAndRevisions(stream), [[2n, 'new']])
  })

  t.test('a tombstoned stream refuses reads', async (t) => {
    const stream = unique('tomb')
    await log.append(stream, events(1))
    await log.tombstoneStream(stream)
    await t.rejects(collect(log.readStream(stream)), StreamDeleted)
  })

  t.test('given a stream that was never written, when soft-deleting it, then it fails whatever the expectation', async (t) => {
    for (const expected of ['any', 'no_stream', 0n] as const) {
      const stream = unique('never-written')
      const error = await log.deleteStream(stream, { expectedRevision: expected }).then(() => null, (e: unknown) => e)
      t.ok(error instanceof WrongExpectedVersion, `expecting ${String(expected)}: a conflict`)
      await t.rejects(collect(log.readStream(stream)), StreamNotFound, 'and the stream is still absent')
    }
  })

  t.test('given any stream, when deleting or tombstoning it with stream_exists, then the call is refused before reaching the log', async (t) => {
    const stream = unique('delete-exists')
    await log.append(stream, events(1))
    const asJavaScript = { expectedRevision: 'stream_exists' } as unknown as { expectedRevision: 'any' }
    await t.rejects(log.deleteStream(stream, asJavaScript), TypeError)
    await t.rejects(log.tombstoneStream(stream, asJavaScript), TypeError)
    t.equal((await collect(log.readStream(stream))).length, 1, 'the stream is untouched')
    await log.deleteStream(stream, { expectedRevision: 0n })
    await t.rejects(collect(log.readStream(stream)), StreamNotFound, 'an exact revision deletes it')
  })

  t.test('retrying an append with the same ids is recognised and writes nothing twice', async (t) => {
    const stream = unique('retry')
    const first = events(2)
    const written = await log.append(stream, first, { expectedRevision: 'no_stream' })
    const again = await log.append(stream, first, { expectedRevision: 'no_stream' })
    t.same(again, written, 'no_stream retry returns the original result')
    const third = [event()]
    const next = await log.append(stream, third, { expectedRevision: 1n })
    t.same(await log.append(stream, third, { expectedRevision: 1n }), next, 'exact retry returns the original result')
    const overlap = await log.append(stream, [first[1]!, third[0]!], { expectedRevision: 0n })
    t.equal(overlap.nextExpectedRevision, 2n, 'a stale exact retry of stored events is idempotent')
    t.equal((await collect(log.readStream(stream))).length, 3, 'nothing was written twice')
    await t.rejects(log.append(stream, [first[0]!, event()], { expectedRevision: 'no_stream' }), WrongExpectedVersion, 'a partial overlap is a conflict')
    await t.rejects(log.append(stream, [event()], { expectedRevision: 'no_stream' }), WrongExpectedVersion, 'new ids on an existing stream conflict')
  })

  t.test('a bad append fails alone, without taking concurrent appends with it', async (t) => {
    const stream = unique('isolated')
    const [good, bad, conflict] = await Promise.allSettled([
      log.append(stream, [event()], { expectedRevision: 'no_stream' }),
      log.append(unique('other'), [event()], { expectedRevision: -5n }),
      log.append(stream, [event()], { expectedRevision: 'no_stream' }),
    ])
    t.equal(good.status, 'fulfilled')
    t.equal(bad.status, 'rejected')
    t.ok(conflict.status === 'rejected' && conflict.reason instanceof WrongExpectedVersion, 'the second no_stream append conflicts')
    t.equal((await collect(log.readStream(stream))).length, 1)
  })

  t.test('results use bigints and dates, and the first append reports revision 0', async (t) => {
    const stream = unique('types')
    const result = await log.append(stream, [event()])
    t.equal(result.nextExpectedRevision, 0n)
    t.equal(typeof result.position.commit, 'bigint')
    t.equal(typeof result.position.prepare, 'bigint')
    const [recorded] = await collect(log.readStream(stream))
    t.ok(recorded!.created instanceof Date)
    t.equal(typeof recorded!.revision, 'bigint')
    t.same(recorded!.position, result.position, 'the stream read carries the $all position')
  })

  t.test('the maximum append size is enforced on the whole append, writing nothing', async (t) => {
    const limit = 1_048_576
    const sized = (bytes: number): EventData => {
      const type = 'Big'
      const padding = bytes - type.length * 2 - JSON.stringify({ x: '' }).length
      return { id: newEventId(), type, data: { x: 'a'.repeat(padding) } }
    }
    const margin = adapter.exactSizes ? 0 : Math.ceil(limit * 0.02)
    const under = unique('size-under')
    t.equal((await log.append(under, [sized(limit - margin)])).nextExpectedRevision, 0n, 'at the limit passes')
    const over = unique('size-over')
    await t.rejects(log.append(over, [sized(limit + 1 + margin)]), MaxAppendSizeExceeded, 'one byte over fails')
    await t.rejects(log.append(over, events(40_000)), MaxAppendSizeExceeded, 'many small events count together')
    await t.rejects(collect(log.readStream(over)), StreamNotFound, 'nothing was written')
  })

  t.test('readStream is inclusive, reads backwards, and throws for a missing stream while iterating', async (t) => {
    const stream = unique('read')
    await log.append(stream, events(3))
    t.same((await collect(log.readStream(stream, { fromRevision: 1n }))).map((e) => e.revision), [1n, 2n])
    t.same((await collect(log.readStream(stream, { direction: 'backwards', maxCount: 1 }))).map((e) => e.revision), [2n])
    t.same((await collect(log.readStream(stream, { direction: 'backwards', fromRevision: 1n }))).map((e) => e.revision), [1n, 0n])
    t.same((await collect(log.readStream(stream, { maxCount: 2 }))).map((e) => e.revision), [0n, 1n])
    const iterable = log.readStream(unique('missing'))
    t.type(iterable[Symbol.asyncIterator], 'function', 'the call itself returns an iterable')
    await t.rejects(collect(iterable), StreamNotFound)
  })

  t.test('readAll is inclusive and keeps append order across streams', async (t) => {
    const a = unique('all-a')
    const b = unique('all-b')
    const first = await log.append(a, [event('ThingHappened', { i: 'a1' })])
    await log.append(b, [event('ThingHappened', { i: 'b1' })])
    await log.append(a, [event('ThingHappened', { i: 'a2' })])
    const [same] = await collect(log.readAll({ fromPosition: first.position, maxCount: 1 }))
    t.same(same!.position, first.position, 'reading from a position returns that event')
    const read = (await collect(log.readAll({ fromPosition: first.position })))
      .filter((e) => e.streamId === a || e.streamId === b)
    t.same(read.map((e) => e.data['i']), ['a1', 'b1', 'a2'])
    for (let i = 1; i < read.length; i++) t.ok(comparePositions(read[i - 1]!.position, read[i]!.position) < 0, 'positions increase')
    const [last] = await collect(log.readAll({ direction: 'backwards', maxCount: 1 }))
    t.ok(last, 'reading backwards from the end returns the newest event')
    const before = await collect(log.readAll({ direction: 'backwards', fromPosition: read[2]!.position, maxCount: 2 }))
    t.same(before.map((e) => e.data['i']), ['b1', 'a1'], 'reading backwards from a position starts strictly before it')
    const head = await log.headPosition()
    t.ok(head && comparePositions(head, read.at(-1)!.position) >= 0, 'the head is at or after the newest event')
  })

  const subscribeUntil = async (
    from: Position, filter: { streamPrefixes?: string[]; eventTypes?: string[] }, stop: (items: SubscriptionItem[]) => boolean,
  ): Promise<SubscriptionItem[]> => {
    const subscription = log.subscribeToAll({ fromPosition: from, filter })
    const items: SubscriptionItem[] = []
    const timer = setTimeout(() => { void subscription.unsubscribe() }, 10_000)
    for await (const item of subscription) {
      items.push(item)
      if (stop(items)) break
    }
    clearTimeout(timer)
    await subscription.unsubscribe()
    return items
  }
  const eventsOf = (items: SubscriptionItem[]): RecordedEvent[] =>
    items.flatMap((item) => (item.kind === 'event' ? [item.event] : []))

  t.test('subscriptions start after the given position, catch up, then deliver live events', async (t) => {
    const stream = unique('sub')
    const marker = await log.append(stream, [event('ThingHappened', { i: 'marker' })])
    await log.append(stream, events(3))
    const subscription = log.subscribeToAll({ fromPosition: marker.position, filter: { streamPrefixes: [stream] } })
    const seen: (string | number)[] = []
    let caughtUpAfter = -1
    for await (const item of subscription) {
      if (item.kind === 'caughtUp' && caughtUpAfter < 0) {
        caughtUpAfter = seen.length
        await log.append(stream, [event('ThingHappened', { i: 'live' })])
      }
      if (item.kind === 'event') seen.push(item.event.data['i'] as string | number)
      if (seen.includes('live')) break
    }
    await subscription.unsubscribe()
    t.same(seen, [0, 1, 2, 'live'], 'the marker itself is not delivered')
    t.equal(caughtUpAfter, 3, 'caughtUp arrives after the history')
  })

  t.test('resuming from a stored position yields no duplicates and no gaps', async (t) => {
    const stream = unique('resume')
    const marker = await log.append(stream, [event('ThingHappened', { i: -1 })])
    await log.append(stream, events(10))
    const firstPart = await subscribeUntil(marker.position, { streamPrefixes: [stream] }, (items) => eventsOf(items).length === 4)
    const resumeFrom = eventsOf(firstPart).at(-1)!.position
    await log.append(stream, events(2).map((e, i) => ({ ...e, data: { i: 10 + i } })))
    const rest = await subscribeUntil(resumeFrom, { streamPrefixes: [stream] }, (items) => eventsOf(items).length === 8)
    t.same([...eventsOf(firstPart), ...eventsOf(rest)].map((e) => e.data['i']), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
  })

  t.test('stream-prefix and event-type filters select events, and checkpoints cover skipped runs', async (t) => {
    const stream = unique('filter')
    const other = unique('other')
    const marker = await log.append(stream, [event('MarkerSet')])
    await log.append(stream, [event('Wanted', { i: 1 })])
    for (let i = 0; i < 5; i++) await log.append(other, events(40, 'Unwanted'))
    const last = await log.append(stream, [event('Wanted', { i: 2 })])
    await log.append(other, events(40, 'Unwanted'))

    const byPrefix = await subscribeUntil(marker.position, { streamPrefixes: [stream] }, (items) => eventsOf(items).length === 2)
    t.same(eventsOf(byPrefix).map((e) => e.data['i']), [1, 2])
    const byType = await subscribeUntil(marker.position, { eventTypes: ['Wanted'] }, (items) =>
      eventsOf(items).some((e) => e.id === eventsOf(byPrefix)[1]!.id))
    t.ok(eventsOf(byType).every((e) => e.type === 'Wanted'), 'only the wanted type is delivered')
    const checkpoints = await subscribeUntil(marker.position, { streamPrefixes: [stream] }, (items) =>
      items.some((item) => item.kind === 'checkpoint' && comparePositions(item.position, last.position) > 0))
    t.ok(checkpoints.some((item) => item.kind === 'checkpoint'), 'a checkpoint arrives across the unwanted run')
    let delivered: Position = marker.position
    for (const item of checkpoints) {
      if (item.kind === 'event') delivered = item.event.position
      if (item.kind === 'checkpoint') {
        const undelivered = [eventsOf(byPrefix)[0]!, eventsOf(byPrefix)[1]!]
          .filter((e) => comparePositions(e.position, item.position) <= 0 && comparePositions(e.position, delivered) > 0)
        t.same(undelivered, [], 'no checkpoint passes an event not yet delivered')
      }
    }
  })

  t.test('given a live filtered subscription, when the newest events are ones it skips, then a checkpoint reaches them soon', async (t) => {
    const stream = unique('idle')
    const other = unique('unrelated')
    const marker = await log.append(stream, [event('MarkerSet')])
    const subscription = log.subscribeToAll({ fromPosition: marker.position, filter: { streamPrefixes: [stream] } })
    const timer = setTimeout(() => { void subscription.unsubscribe() }, 5_000)
    let skipped: Position | undefined
    let reachedAfterMs = -1
    let startedAt = 0
    for await (const item of subscription) {
      if (item.kind === 'caughtUp' && !skipped) {
        await log.append(stream, [event('Wanted', { i: 1 })])
      }
      if (item.kind === 'event' && !skipped) {
        await log.append(other, events(3, 'Unwanted'))
        skipped = (await log.append(other, [event('Unwanted')])).position
        startedAt = Date.now()
      }
      if (item.kind === 'checkpoint' && skipped && comparePositions(item.position, skipped) >= 0) {
        reachedAfterMs = Date.now() - startedAt
        break
      }
    }
    clearTimeout(timer)
    await subscription.unsubscribe()
    t.ok(skipped, 'the wanted event was delivered live')
    t.ok(reachedAfterMs >= 0, 'a checkpoint at or past the newest, skipped, event arrived')
    t.ok(reachedAfterMs < 1_500, `well inside a two-second wait for the head (${reachedAfterMs} ms)`)
  })

  t.test('given 15 caught-up subscriptions left idle, then the log reads a bounded number of times per idle minute', {
    skip: adapter.readsIssued ? false : `${adapter.name} sends no reads to a server`,
  }, async (t) => {
    const count = (): number => adapter.readsIssued!(log)
    const subscriptions = 15
    const streams = Array.from({ length: subscriptions }, (_, i) => unique(`idle-${i}`))
    const marker = await log.append(streams[0]!, [event('MarkerSet')])
    const reached = streams.map(() => marker.position)
    const open = streams.map((stream) => log.subscribeToAll({ fromPosition: marker.position, filter: { streamPrefixes: [stream] } }))
    const caughtUp = new Set<number>()
    const running = open.map(async (subscription, i) => {
      for await (const item of subscription) {
        if (item.kind === 'caughtUp') caughtUp.add(i)
        const position = item.kind === 'event' ? item.event.position : item.kind === 'checkpoint' ? item.position : null
        if (position && comparePositions(position, reached[i]!) > 0) reached[i] = position
      }
    })
    let head = marker.position
    for (const stream of streams.slice(0, 3)) head = (await log.append(stream, events(2))).position
    const until = Date.now() + 10_000
    while (Date.now() < until && (caughtUp.size < subscriptions || reached.some((position) => comparePositions(position, head) < 0))) await sleep(50)
    t.equal(caughtUp.size, subscriptions, 'every subscription caught up')
    t.ok(reached.every((position) => comparePositions(position, head) >= 0), 'and reached the head, by an event or a checkpoint')

    // Other test files may write to the same server; a window in which the head moved is measured again.
    const observer = await adapter.open()
    const windowMs = 10_000
    let perMinute = Number.POSITIVE_INFINITY
    let quietWindow = false
    for (let attempt = 0; attempt < 3 && !quietWindow; attempt++) {
      await sleep(1_000) // the back-off reaches its ceiling
      const headBefore = await observer.headPosition()
      const before = count()
      const startedAt = Date.now()
      await sleep(windowMs)
      const reads = count() - before
      const elapsed = Date.now() - startedAt
      const headAfter = await observer.headPosition()
      quietWindow = headBefore !== null && headAfter !== null && comparePositions(headBefore, headAfter) === 0
      perMinute = Math.round((reads * 60_000) / elapsed)
    }
    await observer.close()
    for (const subscription of open) await subscription.unsubscribe()
    await Promise.all(running)
    // One shared watcher polls the head at most every 400 ms once backed off: 150 reads a minute,
    // whatever the number of subscriptions, and no quiet scan while the head stays put. A watcher
    // per subscription would make 15 times that (about 2,250).
    const bound = quietWindow ? 200 : 1_200
    t.ok(perMinute <= bound, `${perMinute} log reads per idle minute for ${subscriptions} subscriptions (bound ${bound}${quietWindow ? '' : '; the head moved in every window, so reads at the 50 ms floor are allowed'})`)
  })

  t.test('system events never reach readers that use our filters', async (t) => {
    const stream = unique('system')
    const marker = await log.append(stream, [event()])
    await log.deleteStream(stream)
    await log.append(stream, [event('ThingHappened', { i: 'after' })])
    const all = await collect(log.readAll({ fromPosition: marker.position }))
    t.notOk(all.some((e) => e.type.startsWith('$') || e.streamId.startsWith('$')), 'readAll skips $ events')
    const items = await subscribeUntil(marker.position, { streamPrefixes: [stream] }, (items) => eventsOf(items).length === 1)
    t.same(eventsOf(items).map((e) => e.type), ['ThingHappened'])
  })
}
