import t from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import type { EventLog, Subscription, SubscriptionItem } from '../../src/eventlog/port.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { checkpointName, physicalCollection, type Build } from '../../src/readstore/names.js'
import { events } from '../../src/events/projection.js'
import { persons } from '../../src/persons/projection.js'
import { ProjectionSet, requestRebuild } from '../../projections/projection-set.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { digestProjection } from '../../projections/digest.js'
import { positionToString } from '../../src/eventlog/port.js'
import { capture, event } from './support/captured.js'
import { tempDir } from '../support/temp.js'

const projectors = [persons, events]

/**
 * The log as it is, except that a subscription opened while `hold` is set keeps back its
 * `caughtUp` until `release`: a build started then has applied what the log holds but cannot go
 * live yet, so what it left in the store can be read at that point.
 */
const heldLog = (log: EventLog) => {
  let gate: Promise<void> | null = null
  let open: () => void = () => undefined
  const subscribeToAll: EventLog['subscribeToAll'] = (options) => {
    const subscription = log.subscribeToAll(options)
    const wait = gate
    if (wait === null) return subscription
    return {
      unsubscribe: () => subscription.unsubscribe(),
      async *[Symbol.asyncIterator](): AsyncIterator<SubscriptionItem> {
        for await (const item of subscription) {
          if (item.kind === 'caughtUp') await wait
          yield item
        }
      },
    } satisfies Subscription
  }
  const held = new Proxy(log, {
    get: (target, name) => {
      if (name === 'subscribeToAll') return subscribeToAll
      const value: unknown = Reflect.get(target, name, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return {
    log: held,
    hold: () => { gate = new Promise((resolve) => { open = resolve }) },
    release: () => { open(); gate = null },
  }
}

/** The secondary indexes of a build's collections, by collection, as the file's schema lists them. */
const indexesOf = (path: string, build: Build, collections: readonly string[]): Record<string, string[]> => {
  const db = new Database(path, { readonly: true })
  try {
    const out: Record<string, string[]> = {}
    for (const collection of collections) {
      const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name")
        .pluck().all(`c_${physicalCollection(collection, build)}`) as string[]
      out[collection] = rows
    }
    return out
  } finally {
    db.close()
  }
}

const expectedIndexCount = (collection: string, projector: typeof persons): number => projector.indexes?.[collection]?.length ?? 0

t.test('a rebuild defers its projector\'s indexes until it has caught up, and switches with all of them and the same read models', async (t) => {
  const path = join(tempDir(t), 'readmodels.sqlite')
  const sqliteLog = new SqliteEventLog({ path: ':memory:' })
  const { log, hold, release } = heldLog(sqliteLog)
  const store = new SqliteReadStore({ path })
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors })
  const models = new ReadModels({ store, registry, projectors, projections })
  t.teardown(async () => {
    release()
    await projections.stop()
    await sqliteLog.close()
    await store.close()
  })
  await projections.start()
  for (const environmentId of [1, 2]) {
    for (let i = 0; i < 20; i++) {
      await capture(log, environmentId, [
        event('$pageview', `user-${i % 7}`, { properties: { $session_id: `s${i % 3}` }, set: { email: `u${i % 7}@x.test` } }),
        event(i % 2 === 0 ? 'bought' : 'viewed', `user-${(i * 3) % 7}`),
      ])
    }
  }
  const head = (await log.headPosition())!
  t.ok(await models.waitFor(head, ['persons', 'events'], 10_000), 'the first builds caught up')
  const query = { where: { environment_id: 1, event: 'bought' }, orderBy: [['timestamp', 'desc']] } as const
  const answered = await models.find('events', query)
  t.equal(answered.length, 10, 'the query finds the events')

  for (const projector of projectors) {
    const active = (await registry.read(projector.name))!.active
    t.same(Object.values(indexesOf(path, active, projector.collections)).map((names) => names.length),
      projector.collections.map((collection) => expectedIndexCount(collection, projector)), `${projector.name}: the first build made its indexes at start`)
    const original = await digestProjection(store, projector, active)

    hold()
    const pending = (await requestRebuild(registry, projector, positionToString(head))).pending!
    const pendingCheckpoint = checkpointName(projector.name, pending)
    // Picked up as one registered from the command line is, by the running set.
    for (let tries = 0; tries < 400; tries++) {
      const at = await store.checkpoint(pendingCheckpoint)
      if (at !== null && at.commit >= head.commit) break
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    t.ok((await store.checkpoint(pendingCheckpoint))!.commit >= head.commit, `${projector.name}: the pending build applied the log`)
    t.equal((await registry.read(projector.name))!.active.build, active.build, `${projector.name}: not switched while catching up`)
    const whileCatchingUp = indexesOf(path, pending, projector.collections)
    t.same(Object.values(whileCatchingUp).flat(), [], `${projector.name}: no index of the projector while catching up`)
    t.ok(await store.count(physicalCollection(projector.collections[0]!, pending)) > 0, `${projector.name}: the pending build holds documents`)

    release()
    for (let tries = 0; tries < 400 && (await registry.read(projector.name))!.active.build !== pending.build; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
    t.equal((await registry.read(projector.name))!.active.build, pending.build, `${projector.name}: switched to the rebuilt build`)
    t.same(Object.values(indexesOf(path, pending, projector.collections)).map((names) => names.length),
      projector.collections.map((collection) => expectedIndexCount(collection, projector)), `${projector.name}: every index once switched`)
    t.equal((await digestProjection(store, projector, pending)).sha256, original.sha256, `${projector.name}: the same digest as the live build`)
  }
  t.same(await models.find('events', query), answered, 'an indexed query answers the same after the switch')
  const plain = new Database(path, { readonly: true })
  t.teardown(() => plain.close())
  const rebuilt = `c_${physicalCollection('events', (await registry.read('events'))!.active)}`
  const plan = plain.prepare(`EXPLAIN QUERY PLAN SELECT body FROM "${rebuilt}" WHERE "v:environment_id" = 1 AND "v:event" = 'bought' ORDER BY "v:timestamp" DESC`)
    .all() as { detail: string }[]
  t.match(plan.map((row) => row.detail).join('\n'), /USING INDEX "?cx_/, 'the rebuilt collection answers it from an index')
})

t.test('a rebuild stopped before it caught up makes its indexes when it catches up after the restart, before its switch', async (t) => {
  const path = join(tempDir(t), 'readmodels.sqlite')
  const sqliteLog = new SqliteEventLog({ path: ':memory:' })
  const { log, hold, release } = heldLog(sqliteLog)
  const store = new SqliteReadStore({ path })
  const registry = new ProjectionRegistry(store)
  const first = new ProjectionSet({ log, store, registry, projectors: [events] })
  let second: ProjectionSet | null = null
  t.teardown(async () => {
    release()
    await first.stop()
    await second?.stop()
    await sqliteLog.close()
    await store.close()
  })
  await first.start()
  for (let i = 0; i < 10; i++) await capture(log, 1, [event('$pageview', `user-${i % 4}`), event('bought', `user-${i % 3}`)])
  const head = (await log.headPosition())!
  for (let tries = 0; tries < 400 && (await store.checkpoint(checkpointName('events', (await registry.read('events'))!.active)))?.commit !== head.commit; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  const active = (await registry.read('events'))!.active
  const original = await digestProjection(store, events, active)

  hold()
  const pending = (await requestRebuild(registry, events, positionToString(head))).pending!
  for (let tries = 0; tries < 400 && (await store.checkpoint(checkpointName('events', pending)))?.commit !== head.commit; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  t.equal((await store.checkpoint(checkpointName('events', pending)))?.commit, head.commit, 'the pending build applied the log')
  await first.stop()
  t.same(indexesOf(path, pending, events.collections), { events: [] }, 'stopped without its indexes')
  t.equal((await registry.read('events'))!.active.build, active.build, 'and without switching')

  release()
  second = new ProjectionSet({ log, store, registry, projectors: [events] })
  await second.start()
  for (let tries = 0; tries < 400 && (await registry.read('events'))!.active.build !== pending.build; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  t.equal((await registry.read('events'))!.active.build, pending.build, 'switched once caught up after the restart')
  t.equal(indexesOf(path, pending, events.collections)['events']!.length, events.indexes!['events']!.length, 'with every index')
  t.equal((await digestProjection(store, events, pending)).sha256, original.sha256, 'and the same digest')
})
