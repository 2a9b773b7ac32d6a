import t from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { newEventId } from '../../src/kernel/ids.js'
import { collect } from '../support/collect.js'

// EventStoreDB recognises a retried `any` or `stream_exists` append only while an in-memory
// cache holds its ids; the port does not promise it, and the embedded log never does, so that
// nothing that passes here depends on the cache. (The contract suite checks the exact and
// no_stream retries on both logs.)

t.test('given an append with any, when it is retried with the same ids, then the embedded log writes it again', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  t.teardown(() => log.close())
  const events = [{ id: newEventId(), type: 'ThingHappened', data: { n: 1 } }]
  t.equal((await log.append('thing-1', events, { expectedRevision: 'any' })).nextExpectedRevision, 0n)
  t.equal((await log.append('thing-1', events, { expectedRevision: 'any' })).nextExpectedRevision, 1n, 'a second write, not a recognised retry')
  t.equal((await log.append('thing-1', events, { expectedRevision: 'stream_exists' })).nextExpectedRevision, 2n, 'stream_exists too')
  t.same((await collect(log.readStream('thing-1'))).map((e) => e.id), [events[0]!.id, events[0]!.id, events[0]!.id])
})
