import t, { type Test } from 'tap'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import type { EventLog, JsonObject } from '../../src/eventlog/port.js'
import { newEventId } from '../../src/kernel/ids.js'
import type { ReadStore } from '../../src/readstore/port.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { digestProjection } from '../../projections/digest.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { quarantinedEvents } from '../../projections/quarantine.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { tempDir } from '../support/temp.js'

/** Counts events per key and in total: two collections, documents read back across batches. */
const counter = (version = 1, step = 1): Projector => ({
  name: 'counter',
  version,
  collections: ['counters', 'totals'],
  handles: ['Counted'],
  apply(view, event) {
    const key = String(event.data['key'])
    const doc = view.get<{ id: string; n: number }>('counters', key)
    view.put('counters', key, { id: key, n: (doc?.n ?? 0) + step })
    const total = view.get<{ id: string; n: number }>('totals', 'all')
    view.put('totals', 'all', { id: 'all', n: (total?.n ?? 0) + step })
  },
})

const count = (log: EventLog, key: string, times = 1) =>
  log.append(`count-${key}`, Array.from({ length: times }, () => ({ id: newEventId(), type: 'Counted', data: { key } })))

const open = (t: Test) => {
  const dir = tempDir(t)
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  const store = new SqliteReadStore({ path: join(dir, 'readmodels.sqlite') })
  t.teardown(async () => { await log.close(); await store.close() })
  return { log, store, dir }
}

const start = async (t: Test, log: EventLog, store: ReadStore, projector: Projector) => {
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: [projector] })
  await projections.start()
  t.teardown(() => projections.stop())
  const models = new ReadModels<Record<string, JsonObject>>({ store, registry, projectors: [projector], projections })
  return { projections, models, registry }
}

t.test('a projector folds events into documents and read-your-writes waits see them', async (t) => {
  const { log, store } = open(t)
  await count(log, 'a', 3)
  const { models } = await start(t, log, store, counter())
  const last = await count(log, 'b', 2)
  t.equal(await models.waitFor(last.position, ['counters']), true)
  t.same(await models.get('counters', 'a'), { id: 'a', n: 3 })
  t.same(await models.get('counters', 'b'), { id: 'b', n: 2 })
  t.same(await models.get('totals', 'all'), { id: 'all', n: 5 })
})

t.test('a restarted projector resumes from its checkpoint without applying anything twice', async (t) => {
  const { log, store } = open(t)
  await count(log, 'a', 4)
  const first = await start(t, log, store, counter())
  await first.models.waitFor((await log.headPosition())!, ['counters'])
  await first.projections.stop()
  await count(log, 'a', 2)
  const second = await start(t, log, store, counter())
  await second.models.waitFor((await log.headPosition())!, ['counters'])
  t.same(await second.models.get('totals', 'all'), { id: 'all', n: 6 })
})

t.test('waiting on a position the projector does not read still resolves', async (t) => {
  const { log, store } = open(t)
  const { models } = await start(t, log, store, counter())
  const other = await log.append('elsewhere', [{ id: newEventId(), type: 'Unrelated', data: {} }])
  t.equal(await models.waitFor(other.position, ['counters'], 2000), true)
})

t.test('two rebuilds of the same log give identical digests, and the rebuild becomes active', async (t) => {
  const { log, store } = open(t)
  for (let i = 0; i < 300; i++) await count(log, `k${i % 17}`)
  const projector = counter()
  const { projections, models, registry } = await start(t, log, store, projector)
  await models.waitFor((await log.headPosition())!, ['counters'])
  const original = await digestProjection(store, projector, (await registry.read('counter'))!.active)
  await projections.rebuild('counter')
  const firstRebuild = (await registry.read('counter'))!.active
  t.same(firstRebuild, { version: 1, build: 2 }, 'the new build is active')
  await projections.rebuild('counter')
  const secondRebuild = (await registry.read('counter'))!.active
  const a = await digestProjection(store, projector, firstRebuild)
  const b = await digestProjection(store, projector, secondRebuild)
  t.equal(a.sha256, b.sha256, 'two rebuilds agree')
  t.equal(a.sha256, original.sha256, 'and agree with the live build they replaced')
  t.equal(a.collections['counters']!.count, 17)
  t.same(await models.get('totals', 'all'), { id: 'all', n: 300 }, 'queries read the new build')
})

t.test('different read models give different digests', async (t) => {
  const { log, store } = open(t)
  await count(log, 'a', 2)
  const projector = counter()
  const { models, registry } = await start(t, log, store, projector)
  await models.waitFor((await log.headPosition())!, ['counters'])
  const before = await digestProjection(store, projector, (await registry.read('counter'))!.active)
  const last = await count(log, 'a')
  await models.waitFor(last.position, ['counters'])
  const after = await digestProjection(store, projector, (await registry.read('counter'))!.active)
  t.not(before.sha256, after.sha256)
})

t.test('a new projector version is built beside the live one and switched in when caught up', async (t) => {
  const { log, store } = open(t)
  await count(log, 'a', 5)
  const v1 = await start(t, log, store, counter(1, 1))
  await v1.models.waitFor((await log.headPosition())!, ['counters'])
  await v1.projections.stop()
  const v2 = await start(t, log, store, counter(2, 10))
  for (let i = 0; i < 200 && (await v2.registry.read('counter'))!.active.version !== 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.same((await v2.registry.read('counter'))!.active, { version: 2, build: 2 })
  t.same(await v2.models.get('counters', 'a'), { id: 'a', n: 50 }, 'queries read the new version')
  t.same(await store.get('counters_v1_b1', 'a'), { id: 'a', n: 5 }, 'the old build is kept for comparison')
})

t.test('two instances of one build converge without applying an event twice', async (t) => {
  const { log, store } = open(t)
  const projector = counter()
  const one = await start(t, log, store, projector)
  const two = await start(t, log, store, projector)
  const writes: Promise<unknown>[] = []
  for (let i = 0; i < 400; i++) writes.push(count(log, `k${i % 5}`))
  await Promise.all(writes)
  const head = (await log.headPosition())!
  t.ok(await one.models.waitFor(head, ['counters'], 10_000))
  t.ok(await two.models.waitFor(head, ['counters'], 10_000))
  t.same(await one.models.get('totals', 'all'), { id: 'all', n: 400 })
  const status = await one.projections.status()
  t.not(status['counter']!.status, 'failed')
})

t.test('an event the projector throws on is quarantined once, and every other event is applied', async (t) => {
  const { log, store } = open(t)
  const picky: Projector = {
    ...counter(),
    apply(view, event) {
      if (event.data['key'] === 'poison') throw new Error('cannot apply this one')
      counter().apply(view, event)
    },
  }
  const { models, projections } = await start(t, log, store, picky)
  await count(log, 'a', 2)
  const poison = await count(log, 'poison')
  const last = await count(log, 'b', 3)
  t.ok(await models.waitFor(last.position, ['counters'], 5000))
  t.same(await models.get('totals', 'all'), { id: 'all', n: 5 }, 'the events before and after it are all applied')
  t.equal(await models.get('counters', 'poison'), null)
  const records = await quarantinedEvents(store, ['counter@v1#1'])
  t.equal(records.length, 1)
  t.match(records[0], {
    checkpoint: 'counter@v1#1', projection: 'counter', position: `${poison.position.commit}/${poison.position.prepare}`,
    stream_id: 'count-poison', event_type: 'Counted', revision: '0', part: null, error: 'Error: cannot apply this one',
  })
  t.match((await projections.status())['counter'], { status: 'live', quarantined: 1, stalled: false })
})

t.test('a rebuild quarantines the same events and reaches the same digest', async (t) => {
  const { log, store } = open(t)
  const picky: Projector = {
    ...counter(),
    apply(view, event) {
      if (String(event.data['key']).startsWith('bad')) throw new TypeError(`refused ${String(event.data['key'])}`)
      counter().apply(view, event)
    },
  }
  const { models, projections, registry } = await start(t, log, store, picky)
  for (let i = 0; i < 30; i++) await count(log, i % 7 === 0 ? `bad${i}` : `k${i % 4}`, 2)
  t.ok(await models.waitFor((await log.headPosition())!, ['counters'], 5000))
  const live = await digestProjection(store, picky, (await registry.read('counter'))!.active)
  await projections.rebuild('counter')
  const rebuilt = await digestProjection(store, picky, (await registry.read('counter'))!.active)
  t.same(rebuilt, live)
  const first = await quarantinedEvents(store, ['counter@v1#1'])
  const second = await quarantinedEvents(store, ['counter@v1#2'])
  t.equal(first.length, 10, "two events for each of five keys")
  t.same(second.map((r) => [r.position, r.error]), first.map((r) => [r.position, r.error]), 'the same events, for the same reasons')
})

t.test('documents handed to a projector are frozen: mutating one quarantines the event and changes nothing', async (t) => {
  const { log, store } = open(t)
  const mutating: Projector = {
    name: 'mutating', version: 1, collections: ['docs'], handles: ['Counted'],
    apply(view, event) {
      const doc = view.get<{ id: string; n: number }>('docs', 'x')
      if (doc) doc.n += 1
      else view.put('docs', 'x', { id: 'x', n: 1, key: event.data['key'] as string })
    },
  }
  const { models } = await start(t, log, store, mutating)
  await count(log, 'a', 2)
  t.ok(await models.waitFor((await log.headPosition())!, ['docs'], 3000))
  t.same(await models.get('docs', 'x'), { id: 'x', n: 1, key: 'a' })
  const [record] = await quarantinedEvents(store, ['mutating@v1#1'])
  t.match(record, { error: /^TypeError: / }, 'mutating a read document throws, and that event is skipped')
})
