import t, { type Test } from 'tap'
import type { JsonObject, RecordedEvent } from '../../src/eventlog/port.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { newEventId } from '../../src/kernel/ids.js'
import type { ReadStore } from '../../src/readstore/port.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { quarantinedEvents } from '../../projections/quarantine.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { StagedView } from '../../projections/staged-view.js'

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

/** A real in-memory store whose `get` and `getMany` calls are recorded. */
const countingStore = () => {
  const store = new SqliteReadStore({ path: ':memory:' })
  const calls = { get: [] as string[], getMany: [] as string[][] }
  const get = store.get.bind(store)
  const getMany = store.getMany.bind(store)
  store.get = async (collection, id) => { calls.get.push(collection); return get(collection, id) }
  store.getMany = async (collection, ids) => { calls.getMany.push([...ids]); return getMany(collection, ids) }
  return { store, calls }
}

const summed = (keys: string[], n = 1): RecordedEvent => ({
  streamId: 'sums', id: `e${n}`, revision: BigInt(n), type: 'Summed', data: { keys }, metadata: undefined, created: new Date(0),
  position: { commit: BigInt(n), prepare: BigInt(n) },
})

t.test('a prefetch round reads the documents it names in one store call per collection, each id once', async (t) => {
  const { store, calls } = countingStore()
  const runs = { count: 0 }
  const { models, position } = await run(t, summing(true, runs), store)
  t.ok(await models.waitFor(position, ['sums'], 5000))
  t.same(calls.get.filter((collection) => collection.startsWith('sums')), [], 'no document was read on its own')
  const sums = calls.getMany.filter((ids) => ids.some((id) => id === 'k0'))
  t.equal(sums.length, 1, 'one read for the twenty documents')
  t.same(sums[0]!.sort(), Array.from({ length: 20 }, (_, i) => `k${i}`).sort())
  t.equal(runs.count, 1)

  const view = new StagedView(summing(true, { count: 0 }), store, (collection) => collection)
  calls.getMany.length = 0
  await view.apply(summed(['x', 'y', 'x', 'y', 'x']))
  t.same(calls.getMany, [['x', 'y']], 'an id named twice is read once')
})

t.test('documents of the last batches stay loaded, two generations of them, and older ones are read again', async (t) => {
  const { store, calls } = countingStore()
  const view = new StagedView(summing(true, { count: 0 }), store, (collection) => collection, { generationSize: 3 })
  const batch = async (keys: string[], n: number) => {
    await view.apply(summed(keys, n))
    await store.commit({ checkpoint: 'kept', expected: n === 1 ? null : { commit: BigInt(n - 1), prepare: BigInt(n - 1) }, next: { commit: BigInt(n), prepare: BigInt(n) }, changes: view.changes() })
    view.committed()
  }
  const read = () => calls.getMany.flat()
  await batch(['a', 'b'], 1)
  await batch(['c', 'd'], 2)
  t.same(read(), ['a', 'b', 'c', 'd'])
  await batch(['a'], 3)
  t.same(read(), ['a', 'b', 'c', 'd'], 'a document of the older generation is not read again')
  await batch(['e', 'f', 'g'], 4)
  await batch(['b', 'a'], 5)
  t.same(read(), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'b'], 'two generations later, a document is read again; one used since is not')
  t.same(calls.get, [], 'nothing was read on its own')
  t.same(await store.get('sums', 'a'), { n: 3 })
  t.same(await store.get('sums', 'b'), { n: 2 })
})

t.test('the projections of one set derive what they share from a log event once', async (t) => {
  const derived: string[] = []
  const reading = (name: string): Projector => ({
    name, version: 1, collections: [name], handles: ['Summed'],
    apply(view, event) {
      const keys = view.decoded(event, 'keys', () => {
        derived.push(event.id)
        return [...(event.data['keys'] as string[])].sort()
      })
      view.put(name, event.id, { keys })
    },
  })
  const store = new SqliteReadStore({ path: ':memory:' })
  const log = new SqliteEventLog({ path: ':memory:' })
  const projectors = [reading('first'), reading('second')]
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors })
  await projections.start()
  t.teardown(async () => { await projections.stop(); await log.close(); await store.close() })
  const models = new ReadModels<Record<string, JsonObject>>({ store, registry, projectors, projections })
  const ids = [newEventId(), newEventId(), newEventId()]
  const { position } = await log.append('sums-1', ids.map((id, i) => ({ id, type: 'Summed', data: { keys: [`b${i}`, `a${i}`] } })))
  t.ok(await models.waitFor(position, ['first', 'second'], 5000))
  t.same(await models.get('second', ids[2]!), { keys: ['a2', 'b2'] })
  t.same(await models.get('first', ids[0]!), { keys: ['a0', 'b0'] })
  t.same(derived.sort(), [...ids].sort(), 'each log event derived once, for both projections')
})

t.test('documents of a write-only collection are not kept once committed; the others are', async (t) => {
  const { store, calls } = countingStore()
  const projector: Projector = {
    name: 'logging', version: 1, collections: ['entries', 'sums'], writeOnly: ['entries'], handles: ['Summed'],
    apply(view, event) {
      for (const key of event.data['keys'] as string[]) {
        view.put('entries', `${event.id}:${key}`, { key })
        const sum = view.get<{ n: number }>('sums', key)
        view.put('sums', key, { n: (sum?.n ?? 0) + 1 })
      }
    },
  }
  const view = new StagedView(projector, store, (collection) => collection)
  await view.apply(summed(['a', 'b'], 1))
  t.same(view.changes().map((change) => change.id).sort(), ['a', 'b', 'e1:a', 'e1:b'], 'written documents are committed like any other')
  await store.commit({ checkpoint: 'logging', expected: null, next: { commit: 1n, prepare: 1n }, changes: view.changes() })
  view.committed()
  const readBefore = calls.get.length
  await view.apply(summed(['a'], 2))
  t.equal(calls.get.length, readBefore, 'the kept sum is not read again')
  t.same(view.changes().find((change) => change.id === 'a')?.doc, { n: 2 })

  const reader: Projector = { ...projector, apply(view) { view.get('entries', 'e1:a') } }
  const readingView = new StagedView(reader, store, (collection) => collection)
  await readingView.apply(summed([], 3))
  readingView.committed()
  const before = calls.get.length
  await readingView.apply(summed([], 4))
  t.equal(calls.get.length, before + 1, 'a document of a write-only collection read after a commit comes from the store again')
  t.same(await store.get('entries', 'e1:a'), { key: 'a' })
})
