import t from 'tap'
import { randomUUID } from 'node:crypto'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { RecentEvents } from '../../src/eventlog/recent-events.js'
import type { EventRow } from '../../src/eventlog/sqlite-schema.js'
import type { RecordedEvent, SubscriptionItem } from '../../src/eventlog/port.js'

const row = (position: number, id: string, data: string): EventRow => ({
  global_position: BigInt(position), stream_id: 's', stream_revision: BigInt(position), event_id: id,
  event_type: 'E', created_ms: 0n, data, metadata: null,
})

/** The first `count` events a subscription delivers. */
const firstEvents = async (items: AsyncIterable<SubscriptionItem>, count: number): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = []
  for await (const item of items) {
    if (item.kind === 'event') events.push(item.event)
    if (events.length === count) break
  }
  return events
}

t.test('two subscriptions of one log connection get the same decoded events, equal to what a read gives', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => log.close())
  await log.append('a', [{ id: randomUUID(), type: 'E', data: { n: 1, nested: { x: [1, 2] } } }, { id: randomUUID(), type: 'E', data: { n: 2 } }])
  await log.append('b', [{ id: randomUUID(), type: 'F', data: { n: 3 } }])
  const first = log.subscribeToAll({ fromPosition: 'start' })
  const second = log.subscribeToAll({ fromPosition: 'start', filter: { eventTypes: ['E'] } })
  const ones = await firstEvents(first, 3)
  const twos = await firstEvents(second, 2)
  await first.unsubscribe()
  await second.unsubscribe()
  t.equal(twos[0], ones[0], 'one object for the first event')
  t.equal(twos[1], ones[1], 'one object for the second event')
  const read: RecordedEvent[] = []
  for await (const event of log.readAll({ fromPosition: 'start' })) read.push(event)
  t.same(ones, read, 'what subscriptions get is what a read of the log gives')
})

t.test('the kept events are bounded by their size, keyed by position and id, and let go when quiet', async (t) => {
  const recent = new RecentEvents({ maxChars: 1000, idleMs: 50 })
  t.teardown(() => recent.clear())
  const a = recent.decode(row(1, 'a', '{"v":1}'))
  t.equal(recent.decode(row(1, 'a', '{"v":1}')), a, 'the same row again is the kept event')
  t.not(recent.decode(row(1, 'other', '{"v":9}')), a, 'another event at that position is decoded afresh')
  t.same(recent.decode(row(1, 'other', '{"v":9}')).data, { v: 9 })

  const large = `{"s":"${'x'.repeat(2000)}"}`
  const big = recent.decode(row(2, 'big', large))
  t.not(recent.decode(row(2, 'big', large)), big, 'an event larger than the whole budget is never kept')

  for (let i = 10; i < 40; i++) recent.decode(row(i, `e${i}`, `{"pad":"${'y'.repeat(50)}"}`))
  t.ok(recent.size < 30, `the oldest go to stay within the budget (${recent.size} kept)`)
  const newest = recent.decode(row(39, 'e39', '{}'))
  t.equal(recent.decode(row(39, 'e39', '{}')), newest)

  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal(recent.size, 0, 'nothing is kept once quiet')
})
