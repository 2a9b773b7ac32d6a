import t from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { events as eventsProjector } from '../../src/events/projection.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { capture, event } from './support/captured.js'

t.test('captured-event projections commit by the analytics events a batch holds, not by log events', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  // Ten capture requests of 400 analytics events each, written before the projection starts.
  let head = null
  for (let r = 0; r < 10; r++) head = await capture(log, 1, Array.from({ length: 400 }, (_, i) => event('viewed', `user-${r}-${i}`)))
  const sizes: number[] = []
  const commit = store.commit.bind(store)
  store.commit = async (batch) => {
    if (batch.checkpoint.startsWith('events')) sizes.push(batch.changes.length)
    return commit(batch)
  }
  const projections = new ProjectionSet({ log, store, registry: new ProjectionRegistry(store), projectors: [eventsProjector] })
  await projections.start()
  t.teardown(async () => { await projections.stop(); await log.close(); await store.close() })
  t.ok(await projections.activeRunner('events')!.waitFor(head!, 10_000), 'every event is projected')
  const written = sizes.reduce((a, b) => a + b, 0)
  t.equal(written, 4000, 'each analytics event written once')
  t.ok(Math.max(...sizes) <= 1200, `no commit holds much more than 1,000 analytics events (largest ${Math.max(...sizes)} in ${sizes.filter((n) => n > 0).length} commits)`)
})
