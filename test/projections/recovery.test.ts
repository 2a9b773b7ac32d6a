import t, { type Test } from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import type { EventLog } from '../../src/eventlog/port.js'
import { comparePositions } from '../../src/eventlog/port.js'
import { newEventId } from '../../src/kernel/ids.js'
import type { ReadStore } from '../../src/readstore/port.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { digestProjection } from '../../projections/digest.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { ProjectionRunner } from '../../projections/runner.js'

const counter: Projector = {
  name: 'counter', version: 1, collections: ['totals'], handles: ['Counted'],
  apply(view) {
    const total = view.get<{ id: string; n: number }>('totals', 'all')
    view.put('totals', 'all', { id: 'all', n: (total?.n ?? 0) + 1 })
  },
}
const counted = (log: EventLog) => log.append(`count-${newEventId()}`, [{ id: newEventId(), type: 'Counted', data: {} }])
const unrelated = (log: EventLog) => log.append(`other-${newEventId()}`, [{ id: newEventId(), type: 'Unrelated', data: {} }])

const open = (t: Test) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(async () => { await log.close(); await store.close() })
  return { log, store }
}

const runner = (t: Test, log: EventLog, store: ReadStore, idleCheckpointMs: number, onError?: (e: unknown, fatal: boolean) => void) => {
  const r = new ProjectionRunner({ log, store, projector: counter, build: { version: 1, build: 1 }, idleCheckpointMs, ...(onError ? { onError } : {}) })
  t.teardown(() => r.stop())
  return r
}

t.test('a second instance of a build never moves the stored checkpoint backwards', async (t) => {
  const { log, store } = open(t)
  const a = runner(t, log, store, 300)
  await a.start()
  const first = await counted(log)
  await a.waitFor(first.position, 2000)
  const skipped = await unrelated(log)
  await a.waitFor(skipped.position, 2000)
  const b = runner(t, log, store, 0)
  await b.start()
  await b.waitFor(skipped.position, 2000)
  const third = await counted(log)
  await a.waitFor(third.position, 2000)
  await b.waitFor(third.position, 2000)
  await new Promise((resolve) => setTimeout(resolve, 600))
  const stored = await store.checkpoint('counter@v1#1')
  t.ok(stored && comparePositions(stored, third.position) >= 0, 'the stored checkpoint is at or past the last event')
  t.same(await store.get('totals_v1_b1', 'all'), { id: 'all', n: 2 }, 'each event counted once')
})

t.test('a store that fails for a moment delays the projection but does not stop it', async (t) => {
  const { log, store } = open(t)
  let failures = 1
  const flaky: ReadStore = Object.create(store, {
    commit: { value: async (batch: Parameters<ReadStore['commit']>[0]) => {
      if (failures-- > 0) throw new Error('SQLITE_BUSY: database is locked')
      return store.commit(batch)
    } },
  })
  const errors: boolean[] = []
  const r = runner(t, log, flaky, 1000, (_error, fatal) => errors.push(fatal))
  await r.start()
  const written = await counted(log)
  t.equal(await r.waitFor(written.position, 5000), true)
  t.equal(r.status, 'live')
  t.same(errors, [false], 'the failure was reported as transient')
  t.same(await store.get('totals_v1_b1', 'all'), { id: 'all', n: 1 })
})

t.test('a long catch-up leaves room for timers and requests', async (t) => {
  const { log, store } = open(t)
  for (let i = 0; i < 60; i++) {
    await log.append(`bulk-${i}`, Array.from({ length: 1000 }, () => ({ id: newEventId(), type: 'Counted', data: {} })))
  }
  let timerFiredAt = -1
  let events = 0
  setTimeout(() => { timerFiredAt = events }, 5)
  const r = runner(t, log, store, 1000)
  await r.start()
  const subscription = log.subscribeToAll({ filter: { eventTypes: ['Counted'] } })
  for await (const item of subscription) {
    if (item.kind === 'event') events++
    if (item.kind === 'caughtUp') break
  }
  await subscription.unsubscribe()
  t.ok(timerFiredAt >= 0 && timerFiredAt < 60_000, `the timer fired during the catch-up (after ${timerFiredAt} events)`)
})

t.test('a projector whose code version changed is caught up before start returns', async (t) => {
  const { log, store } = open(t)
  for (let i = 0; i < 20; i++) await counted(log)
  const registry = new ProjectionRegistry(store)
  const v1 = new ProjectionSet({ log, store, registry, projectors: [counter] })
  await v1.start()
  await v1.activeRunner('counter')!.waitFor((await log.headPosition())!, 2000)
  await v1.stop()
  const v2 = new ProjectionSet({ log, store, registry, projectors: [{ ...counter, version: 2 }] })
  await v2.start()
  t.teardown(() => v2.stop())
  t.same((await registry.read('counter'))!.active, { version: 2, build: 2 })
  t.same(await store.get('totals_v2_b2', 'all'), { id: 'all', n: 20 })
  const next = await counted(log)
  t.equal(await v2.activeRunner('counter')!.waitFor(next.position, 2000), true, 'new writes are projected by the new version')
})

t.test('concurrent rebuilds run one after the other and leave one active build', async (t) => {
  const { log, store } = open(t)
  for (let i = 0; i < 50; i++) await counted(log)
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: [counter] })
  await projections.start()
  t.teardown(() => projections.stop())
  await Promise.all([projections.rebuild('counter'), projections.rebuild('counter')])
  const entry = (await registry.read('counter'))!
  t.same(entry, { active: { version: 1, build: 3 }, pending: null, lastBuild: 3 })
  t.equal((await projections.status())['counter']!.rebuilding, null)
  t.equal((await digestProjection(store, counter, entry.active)).collections['totals']!.count, 1)
  t.same(await store.get('totals_v1_b3', 'all'), { id: 'all', n: 50 })
})

t.test('a failed build switch is reported, not thrown into the void', async (t) => {
  const { log, store } = open(t)
  await counted(log)
  class FlakyRegistry extends ProjectionRegistry {
    calls = 0
    override async update(...args: Parameters<ProjectionRegistry['update']>) {
      if (++this.calls === 2) throw new Error('registry unavailable')
      return super.update(...args)
    }
  }
  const errors: string[] = []
  const projections = new ProjectionSet({ log, store, registry: new FlakyRegistry(store), projectors: [counter], onError: (_n, e) => errors.push(String(e)) })
  await projections.start()
  t.teardown(() => projections.stop())
  await t.rejects(projections.rebuild('counter'), /registry unavailable/)
  t.same(errors, ['Error: registry unavailable'])
  await projections.rebuild('counter')
  t.equal((await projections.status())['counter']!.build, 2, 'a later rebuild still works')
})
