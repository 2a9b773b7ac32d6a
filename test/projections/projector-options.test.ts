import t, { type Test } from 'tap'
import type { JsonObject } from '../../src/eventlog/port.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { newEventId } from '../../src/kernel/ids.js'
import type { ReadStore } from '../../src/readstore/port.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../projections/projector.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { quarantinedEvents } from '../../projections/quarantine.js'
import { ProjectionRegistry } from '../../projections/registry.js'

/** Sums values into `sums/<key>` for many keys per event, and counts every run of `apply`. */
const summing = (prefetch: boolean, runs: { count: number }, collection = 'sums'): Projector => ({
  name: 'summing',
  version: 1,
  collections: ['sums'],
  handles: ['Summed'],
  ...(prefetch ? { *prefetch(event) { for (const key of event.data['keys'] as string[]) yield [collection, key] as const } } : {}),
  apply(view, event) {
    runs.count++
    for (const key of event.data['keys'] as string[]) {
      const doc = view.get<{ n: number }>('sums', key)
      view.put('sums', key, { n: (doc?.n ?? 0) + 1 })
    }
  },
})

const run = async (t: Test, projector: Projector, store: ReadStore = new SqliteReadStore({ path: ':memory:' })) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const registry = new ProjectionRegistry(store)
  const errors: unknown[] = []
  const projections = new ProjectionSet({ log, store, registry, projectors: [projector], onError: (_name, error) => errors.push(error) })
  await projections.start()
  t.teardown(async () => { await projections.stop(); await log.close(); await store.close() })
  const models = new ReadModels<Record<string, JsonObject>>({ store, registry, projectors: [projector], projections })
  const keys = Array.from({ length: 20 }, (_, i) => `k${i}`)
  const { position } = await log.append('sums-1', [{ id: newEventId(), type: 'Summed', data: { keys } }])
  return { models, position, errors, projections, store }
}

t.test('documents a projector names ahead are loaded before apply, which then runs once', async (t) => {
  const runs = { count: 0 }
  const { models, position } = await run(t, summing(true, runs))
  t.ok(await models.waitFor(position, ['sums'], 5000))
  t.equal(runs.count, 1)
  t.same(await models.get('sums', 'k19'), { n: 1 })
})

t.test('without prefetch each unloaded document costs apply another run', async (t) => {
  const runs = { count: 0 }
  const { models, position } = await run(t, summing(false, runs))
  t.ok(await models.waitFor(position, ['sums'], 5000))
  t.equal(runs.count, 21)
})

t.test('prefetching a collection the projector does not own quarantines the event, and the projection carries on', async (t) => {
  const runs = { count: 0 }
  const { models, position, projections, store } = await run(t, summing(true, runs, 'elsewhere'))
  t.ok(await models.waitFor(position, ['sums'], 5000), 'the projection moved past the event')
  const [record] = await quarantinedEvents(store, ['summing@v1#1'])
  t.match(record, { projection: 'summing', event_type: 'Summed', part: null, error: /does not own elsewhere/ })
  t.match((await projections.status())['summing'], { status: 'live', quarantined: 1 })
  t.equal(runs.count, 0, 'apply never ran on it')
})

t.test('a projector\'s batch size bounds the log events folded into one commit', async (t) => {
  const store = new SqliteReadStore({ path: ':memory:' })
  const log = new SqliteEventLog({ path: ':memory:' })
  for (let i = 0; i < 5; i++) await log.append(`sums-${i}`, [{ id: newEventId(), type: 'Summed', data: { keys: ['a'] } }])
  const committed: number[] = []
  const commit = store.commit.bind(store)
  store.commit = async (batch) => {
    if (batch.changes.length > 0) committed.push(batch.changes.length)
    await commit(batch)
  }
  const projector: Projector = { ...summing(true, { count: 0 }), batchSize: 2 }
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: [projector] })
  await projections.start()
  t.teardown(async () => { await projections.stop(); await log.close(); await store.close() })
  const models = new ReadModels<Record<string, JsonObject>>({ store, registry, projectors: [projector], projections })
  t.ok(await models.waitFor((await log.headPosition())!, ['sums'], 5000))
  t.same(await models.get('sums', 'a'), { n: 5 })
  t.ok(committed.length >= 3, `at least three commits (${committed.join(', ')})`)
})
