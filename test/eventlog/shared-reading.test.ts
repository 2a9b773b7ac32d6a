import t from 'tap'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { DecodedRows } from '../../src/eventlog/decoded-rows.js'
import type { RecordedEvent, SubscriptionItem } from '../../src/eventlog/port.js'
import type { EventRow } from '../../src/eventlog/sqlite-schema.js'
import { tempDir } from '../support/temp.js'

const row = (position: number, data: string): EventRow => ({
  global_position: BigInt(position), stream_id: `s-${position}`, stream_revision: 0n, event_id: `e-${position}`, event_type: 'T', created_ms: 0n, data, metadata: null,
})

/** The first `count` events a subscription delivers. */
const firstEvents = async (items: AsyncIterator<SubscriptionItem>, count: number): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = []
  while (events.length < count) {
    const next = await items.next()
    if (next.done) break
    if (next.value.kind === 'event') events.push(next.value.event)
  }
  return events
}

t.test('a row is decoded once while another reader has still to pass it, and let go once all have', async (t) => {
  const decoded = new DecodedRows(1000)
  const a = decoded.reader(0n)
  const b = decoded.reader(0n)
  const first = decoded.decode(row(1, '{"n":1}'))
  t.same(first.data, { n: 1 })
  a.passed(1n)
  t.equal(decoded.decode(row(1, '{"n":1}')), first, 'the slower reader gets the same recorded event')
  b.passed(1n)
  t.not(decoded.decode(row(1, '{"n":1}')), first, 'once both have passed it, the row is not kept')
})

t.test('past its limit the oldest rows go first, and a row larger than the limit is never kept', async (t) => {
  const decoded = new DecodedRows(30)
  decoded.reader(0n)
  decoded.reader(0n)
  const first = decoded.decode(row(1, '{"n":"aaaaaaaaaaaa"}'))
  t.equal(decoded.decode(row(1, '{"n":"aaaaaaaaaaaa"}')), first)
  const second = decoded.decode(row(2, '{"n":"bbbbbbbbbbbb"}'))
  t.equal(decoded.decode(row(2, '{"n":"bbbbbbbbbbbb"}')), second, 'the newer one is kept')
  t.not(decoded.decode(row(1, '{"n":"aaaaaaaaaaaa"}')), first, 'the oldest row was let go')
  const large = row(3, `{"n":"${'c'.repeat(40)}"}`)
  t.not(decoded.decode(large), decoded.decode(large), 'a row larger than the limit is never kept')
})

t.test('with one reader, or none left, nothing is kept', async (t) => {
  const decoded = new DecodedRows(1000)
  const only = decoded.reader(0n)
  t.not(decoded.decode(row(1, '{"n":1}')), decoded.decode(row(1, '{"n":1}')), 'a lone reader has no one to share with')
  const other = decoded.reader(0n)
  const kept = decoded.decode(row(2, '{"n":2}'))
  t.equal(decoded.decode(row(2, '{"n":2}')), kept)
  other.close()
  t.not(decoded.decode(row(2, '{"n":2}')), kept, 'when a reader closes and one is left, what was kept goes')
  only.close()
})

t.test('two subscriptions of one log reading the same rows get the same recorded events', async (t) => {
  const log = new SqliteEventLog({ path: join(tempDir(t), 'events.sqlite') })
  t.teardown(() => log.close())
  for (let i = 0; i < 5; i++) await log.append(`stream-${i}`, [{ id: randomUUID(), type: 'Happened', data: { i } }])
  const a = log.subscribeToAll({ fromPosition: 'start' })
  const b = log.subscribeToAll({ fromPosition: 'start' })
  t.teardown(async () => { await a.unsubscribe(); await b.unsubscribe() })
  // Read in turns, as the runners of one projection thread do.
  const [itemsA, itemsB] = [a[Symbol.asyncIterator](), b[Symbol.asyncIterator]()]
  const fromA: RecordedEvent[] = []
  const fromB: RecordedEvent[] = []
  for (let i = 0; i < 5; i++) {
    fromA.push(...await firstEvents(itemsA, 1))
    fromB.push(...await firstEvents(itemsB, 1))
  }
  t.same(fromA.map((event) => event.data), [0, 1, 2, 3, 4].map((i) => ({ i })))
  t.ok(fromA.every((event, i) => event === fromB[i]), 'each row was parsed once for both')
})

t.test('a commit tells its listeners the types of the events it wrote, and a refused append adds none', async (t) => {
  const log = new SqliteEventLog({ path: join(tempDir(t), 'events.sqlite') })
  t.teardown(() => log.close())
  const heard: string[][] = []
  log.onCommit((types) => heard.push([...(types ?? [])].sort()))
  await Promise.all([
    log.append('a', [{ id: randomUUID(), type: 'Alpha', data: {} }, { id: randomUUID(), type: 'Beta', data: {} }]),
    log.append('b', [{ id: randomUUID(), type: 'Gamma', data: {} }]),
  ])
  t.same(heard, [['Alpha', 'Beta', 'Gamma']], 'one group, every type it wrote')
  await t.rejects(log.append('a', [{ id: randomUUID(), type: 'Delta', data: {} }], { expectedRevision: 'no_stream' }))
  t.same(heard, [['Alpha', 'Beta', 'Gamma']], 'a group that wrote nothing is not announced')
})
