import t from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { newEventId } from '../../src/kernel/ids.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { projectionWatchdog, type StalledProjection } from '../../src/scheduler/projection-watchdog.js'
import { startScheduler } from '../../src/scheduler/scheduler.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { storedStatus } from '../../projections/stored-status.js'

const until = async (condition: () => boolean, ms = 3000): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  return condition()
}

t.test('only the process holding the lease runs the jobs', async (t) => {
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(() => store.close())
  const runs: string[] = []
  const job = (owner: string) => ({ name: 'note', everyMs: 10, run: async () => { runs.push(owner) } })
  const a = startScheduler({ store, owner: 'a', jobs: [job('a')], tickMs: 10 })
  const b = startScheduler({ store, owner: 'b', jobs: [job('b')], tickMs: 10 })
  t.ok(await until(() => runs.length >= 5))
  await a.stop()
  t.same([...new Set(runs)], ['a'], 'b waited while a held the lease')
  runs.length = 0
  t.ok(await until(() => runs.length >= 2), 'b takes over once a releases the lease')
  await b.stop()
  t.same([...new Set(runs)], ['b'])
})

t.test('a failing job is reported and does not stop the others', async (t) => {
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(() => store.close())
  const errors: string[] = []
  let ran = 0
  const scheduler = startScheduler({
    store, owner: 'x', tickMs: 10,
    jobs: [{ name: 'broken', everyMs: 10, run: async () => { throw new Error('no') } }, { name: 'fine', everyMs: 10, run: async () => { ran++ } }],
    onError: (job) => errors.push(job),
  })
  t.ok(await until(() => ran >= 2))
  await scheduler.stop()
  t.ok(errors.length >= 1 && errors.every((job) => job === 'broken'))
})

t.test('stopping goes through when the lease cannot be released, and says why', async (t) => {
  const store = new SqliteReadStore({ path: ':memory:' })
  const errors: { job: string; error: unknown }[] = []
  const scheduler = startScheduler({ store, owner: 'x', tickMs: 10, jobs: [], onError: (job, error) => errors.push({ job, error }) })
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal(await store.acquireLease('scheduler', 'y', 1000), false, 'x holds the lease')
  await store.close()
  await t.resolves(scheduler.stop())
  t.equal(errors.length, 1)
  t.equal(errors[0]!.job, 'scheduler')
  t.match(String(errors[0]!.error), /not open/)
})

t.test('the watchdog warns about a projection that is behind and not moving, and only then', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(async () => { await log.close(); await store.close() })
  const registry = new ProjectionRegistry(store)
  // `stuck` is known to the watchdog but no process runs it, as after a projector process died.
  const broken: Projector = { name: 'stuck', version: 1, collections: ['stuck'], handles: ['Happened'], apply(view, e) { view.put('stuck', e.id, { id: e.id }) } }
  const healthy: Projector = { name: 'fine', version: 1, collections: ['fine'], handles: ['Happened'], apply(view, e) { view.put('fine', e.id, { id: e.id }) } }
  const projections = new ProjectionSet({ log, store, registry, projectors: [healthy] })
  await projections.start()
  t.teardown(() => projections.stop())
  const written = await log.append('things', [{ id: newEventId(), type: 'Happened', data: {} }])
  await projections.activeRunner('fine')!.waitFor(written.position, 2000)
  const warnings: StalledProjection[] = []
  const watchdog = projectionWatchdog({ status: () => storedStatus(log, store, registry, [broken, healthy]), warn: (s) => warnings.push(s) })
  await watchdog.run(new Date())
  t.same(warnings, [], 'one look is not enough to call a projection stalled')
  await watchdog.run(new Date())
  t.same(warnings.map((w) => w.name), ['stuck'])
  t.equal(warnings[0]!.lag, 1)
})
