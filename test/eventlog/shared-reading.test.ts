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

t.test('a row is decoded once for every subscription of one log, and the oldest rows go once the data kept passes the limit', async (t) => {
  const decoded = new DecodedRows(30)
  const first = decoded.decode(row(1, '{"n":"aaaaaaaaaaaa"}'))
  t.equal(decoded.decode(row(1, '{"n":"aaaaaaaaaaaa"}')), first, 'the same row gives the same recorded event')
  t.same(first.data, { n: 'aaaaaaaaaaaa' })
  decoded.decode(row(2, '{"n":"bbbbbbbbbbbb"}'))
  t.not(decoded.decode(row(1, '{"n":"aaaaaaaaaaaa"}')), first, 'past the limit the oldest row was let go and is decoded again')
  const large = row(3, `{"n":"${'c'.repeat(40)}"}`)
  t.not(decoded.decode(large), decoded.decode(large), 'a row larger than the limit is never kept')
})

t.test('two subscriptions of one log reading the same rows get the same recorded events', async (t) => {
  const log = new SqliteEventLog({ path: join(tempDir(t), 'events.sqlite') })
  t.teardown(() => log.close())
  for (let i = 0; i < 5; i++) await log.append(`stream-${i}`, [{ id: randomUUID(), type: 'Happened', data: { i } }])
  const a = log.subscribeToAll({ fromPosition: 'start' })
  const b = log.subscribeToAll({ fromPosition: 'start' })
  t.teardown(async () => { await a.unsubscribe(); await b.unsubscribe() })
  const fromA = await firstEvents(a[Symbol.asyncIterator](), 5)
  const fromB = await firstEvents(b[Symbol.asyncIterator](), 5)
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
