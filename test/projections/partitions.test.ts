import t from 'tap'
import fc from 'fast-check'
import type { EventLog } from '../../src/eventlog/port.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import type { Build } from '../../src/readstore/names.js'
import { partitionOf, partitionsOf, type Partition } from '../../src/readstore/partition.js'
import type { Projector } from '../../src/readstore/projector.js'
import { events } from '../../src/events/projection.js'
import { sessions } from '../../src/sessions/projection.js'
import { groups } from '../../src/groups/projection.js'
import { exportedAssets } from '../../src/exports/projection.js'
import { ProjectionRunner } from '../../projections/runner.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { PartitionGroup } from '../../projections/partition-group.js'
import { join } from 'node:path'
import { tempDir } from '../support/temp.js'
import { ownFilesOf } from '../../src/readstore/sqlite-shards.js'
import { digestProjection, type ProjectionDigest } from '../../projections/digest.js'
import { capture, event } from './support/captured.js'

const PARTITIONED = [events, sessions, groups]
const RUNS = Number(process.env['PARTITION_RUNS'] ?? 12)

/** One capture request: events of a few people and sessions, some sent again under the same UUID with other contents. */
const requestArbitrary = fc.array(fc.record({
  name: fc.constantFrom('$pageview', '$pageleave', 'bought', '$autocapture'),
  person: fc.integer({ min: 0, max: 9 }),
  session: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
  url: fc.constantFrom('https://a.test/', 'https://a.test/pricing', 'https://b.test/?utm_source=x'),
  /** Group types, more than the five an environment may have, and their groups. */
  group: fc.option(fc.tuple(fc.constantFrom('company', 'team', 'org', 'region', 'plan', 'shop'), fc.integer({ min: 0, max: 4 }), fc.boolean()), { nil: null }),
  again: fc.boolean(),
  /** The copy's UUID in capitals, which normalisation makes the same UUID. */
  shout: fc.boolean(),
}), { minLength: 1, maxLength: 8 })

const historyArbitrary = fc.record({
  requests: fc.array(fc.tuple(fc.constantFrom(1, 2), requestArbitrary), { minLength: 5, maxLength: 30 }),
  /** Where the runner of one partition is stopped and another takes its partition over, as a share of the history. */
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
})

type History = typeof historyArbitrary extends fc.Arbitrary<infer H> ? H : never

const appendHistory = async (log: EventLog, requests: History['requests']) => {
  let last: ReturnType<typeof event> | null = null
  for (const [environmentId, request] of requests) {
    const captured = request.map((one) => {
      const properties: Record<string, unknown> = { $current_url: one.url, ...(one.session === null ? {} : { $session_id: `s-${one.session}` }) }
      let name: string = one.name
      if (one.group !== null) {
        const [type, key, identify] = one.group
        if (identify) {
          name = '$groupidentify'
          Object.assign(properties, { $group_type: type, $group_key: `${type}-${key}`, $group_set: { seen: one.url, [`by-${one.person}`]: true } })
        } else {
          properties['$groups'] = { [type]: `${type}-${key}` }
        }
      }
      const made = event(name, `person-${one.person}`, { properties: properties as never })
      const copy = one.again && last !== null ? { ...made, uuid: one.shout ? last.uuid.toUpperCase() : last.uuid } : made
      last = made
      return copy
    })
    await capture(log, environmentId, captured)
  }
}

const until = async (runner: ProjectionRunner, log: EventLog): Promise<void> => {
  const head = await log.headPosition()
  if (head && !(await runner.waitFor(head, 20_000))) throw new Error(`${runner.checkpointName} did not catch up`)
}

const runner = (log: EventLog, store: SqliteReadStore, projector: Projector, build: Build, partition: Partition) =>
  new ProjectionRunner({ log, store, projector, build, partition, batchSize: 7, idleCheckpointMs: 0 })

/** Builds `build` of `projector` in `count` partitions at once, each runner with its own pace; one is replaced half-way. */
const buildInPartitions = async (log: EventLog, store: SqliteReadStore, projector: Projector, build: Build, count: number, cut: number) => {
  const head = (await log.headPosition())!
  const runners = partitionsOf(count).map((partition) => runner(log, store, projector, build, partition))
  await Promise.all(runners.map((one) => one.start()))
  if (count > 1) {
    // The runner of partition 0 stops once it has passed `cut` of the log, as a process that dies;
    // another takes the partition over from its checkpoint.
    const stopAt = { commit: BigInt(Math.floor(Number(head.commit) * cut)), prepare: BigInt(Math.floor(Number(head.commit) * cut)) }
    await runners[0]!.waitFor(stopAt, 20_000)
    await runners[0]!.stop()
    runners[0] = runner(log, store, projector, build, partitionsOf(count)[0]!)
    await runners[0].start()
  }
  for (const one of runners) await until(one, log)
  for (const one of runners) await one.stop()
  return digestProjection(store, projector, build)
}

t.test('a key falls in one partition of any count, and keys spread over all of them', async (t) => {
  const keys = Array.from({ length: 4000 }, (_, i) => `1:session-${i}`)
  for (const count of [1, 2, 4, 7]) {
    const seen = new Array<number>(count).fill(0)
    const outside = keys.filter((key) => {
      const index = partitionOf(key, count)
      if (!(Number.isInteger(index) && index >= 0 && index < count)) return true
      seen[index]!++
      return false
    })
    t.same(outside, [], `every key in 0…${count - 1}`)
    t.ok(seen.every((n) => n > (keys.length / count) * 0.8), `${count} partitions: every one holds about its share (${seen.join(', ')})`)
  }
  t.equal(partitionOf('1:session-0', 4), partitionOf('1:session-0', 4), 'the same key, the same partition')
  const uuids = Array.from({ length: 2000 }, (_, i) => `1:01a220ba-cf3b-71c5-a80b-${String(i).padStart(12, 'a')}`)
  const together = uuids.filter((key) => partitionOf(key, 4) === partitionOf(key.toUpperCase(), 4)).length
  t.ok(together < uuids.length * 0.4, `keys that differ in case alone fall apart like any others (${together} of ${uuids.length} together in 4)`)
})

t.test('a projection that is not partitioned cannot be built in partitions', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(async () => { await log.close(); await store.close() })
  t.throws(() => runner(log, store, exportedAssets, { version: exportedAssets.version, build: 1 }, { index: 0, count: 2 }), /cannot be built in partitions/)
})

t.test('events, sessions and groups built in 1, 2 and 4 partitions, one runner replaced half-way, give the same digests', async (t) => {
  let runs = 0
  await fc.assert(fc.asyncProperty(historyArbitrary, async ({ requests, cut }) => {
    const log = new SqliteEventLog({ path: ':memory:' })
    const store = new SqliteReadStore({ path: ':memory:' })
    try {
      await appendHistory(log, requests)
      for (const projector of PARTITIONED) {
        const digests: ProjectionDigest[] = []
        for (const [build, count] of [[1, 1], [2, 2], [3, 4]] as const) {
          digests.push(await buildInPartitions(log, store, projector, { version: projector.version, build }, count, cut))
        }
        if (digests.some((digest) => digest.sha256 !== digests[0]!.sha256)) {
          throw new Error(`${projector.name}: ${digests.map((digest) => JSON.stringify(digest.collections)).join(' / ')}`)
        }
        if (Object.values(digests[0]!.collections).every((collection) => collection.count === 0)) throw new Error(`${projector.name} built nothing`)
      }
      runs++
    } finally {
      await log.close()
      await store.close()
    }
  }), { numRuns: RUNS })
  t.equal(runs, RUNS, `${RUNS} histories built alike in every partition count`)
})

const waitUntil = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

t.test('processes share the partitions of a build; when one dies, the others take its partitions over, and the read models equal one process\'s', async (t) => {
  const dir = tempDir(t)
  const log = new SqliteEventLog({ path: join(dir, 'log.sqlite') })
  const stores: SqliteReadStore[] = []
  const sets: ProjectionSet[] = []
  t.teardown(async () => {
    for (const set of sets) await set.stop()
    for (const store of stores) await store.close()
    await log.close()
  })
  /** One projector process on the shared read store file, as `serve --roles projector` runs it. */
  const projectorProcess = async (owner: string, partitions: number, path = join(dir, 'readmodels.sqlite')) => {
    // Laid out as the service lays it out: events and sessions each in a file of their own.
    const store = new SqliteReadStore({ path, ownFiles: ownFilesOf(PARTITIONED) })
    stores.push(store)
    const set = new ProjectionSet({ log, store, registry: new ProjectionRegistry(store), projectors: PARTITIONED, partitions, owner, partitionLeaseMs: 600 })
    sets.push(set)
    await set.start()
    return { store, set, group: (name: string) => set.activeRunner(name) as PartitionGroup }
  }
  const requests = fc.sample(historyArbitrary, { numRuns: 1, seed: 7 })[0]!.requests
  const third = Math.ceil(requests.length / 3)
  await appendHistory(log, requests.slice(0, third))

  const processes = [await projectorProcess('a', 4), await projectorProcess('b', 4), await projectorProcess('c', 4)]
  for (const projector of PARTITIONED) {
    await waitUntil(`${projector.name} is split among three`, () => processes.every((one) => one.group(projector.name).running.length > 0))
    t.same(processes.map((one) => one.group(projector.name).running.length).sort(), [1, 1, 2], `${projector.name}: 4 partitions over 3 processes`)
  }
  await appendHistory(log, requests.slice(third, 2 * third))

  // Process b dies: its runners stop where they are, holding their leases until they run out.
  const dead = processes[1]!
  for (const projector of PARTITIONED) await dead.group(projector.name).stop(false)
  await appendHistory(log, requests.slice(2 * third))
  const head = (await log.headPosition())!
  for (const projector of PARTITIONED) {
    await waitUntil(`${projector.name} is split among the two left`, () =>
      processes[0]!.group(projector.name).running.length + processes[2]!.group(projector.name).running.length === 4)
    t.ok(await processes[0]!.group(projector.name).waitFor(head, 20_000), `${projector.name}: caught up after the takeover`)
  }

  const single = await projectorProcess('alone', 1, join(dir, 'single.sqlite'))
  for (const projector of PARTITIONED) {
    t.ok(await single.set.activeRunner(projector.name)!.waitFor(head, 20_000))
    const partitioned = (await new ProjectionRegistry(processes[0]!.store).read(projector.name))!.active
    t.equal(partitioned.partitions, 4, `${projector.name}: the build is registered with its partitions`)
    const whole = (await new ProjectionRegistry(single.store).read(projector.name))!.active
    const [a, b] = [await digestProjection(processes[0]!.store, projector, partitioned), await digestProjection(single.store, projector, whole)]
    t.ok(Object.values(b.collections).some((collection) => collection.count > 0), `${projector.name}: documents were built`)
    t.equal(a.sha256, b.sha256, `${projector.name}: the same digest as one process unpartitioned`)
  }
})

t.test('changing the partition count builds the read models again beside the live ones, switches, and keeps the count', async (t) => {
  const dir = tempDir(t)
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: join(dir, 'readmodels.sqlite'), ownFiles: ownFilesOf(PARTITIONED) })
  const registry = new ProjectionRegistry(store)
  let set: ProjectionSet | null = null
  t.teardown(async () => { await set?.stop(); await store.close(); await log.close() })
  await appendHistory(log, fc.sample(historyArbitrary, { numRuns: 1, seed: 11 })[0]!.requests)
  const head = (await log.headPosition())!
  const startWith = async (partitions: number) => {
    await set?.stop()
    set = new ProjectionSet({ log, store, registry, projectors: PARTITIONED, partitions, owner: 'only', partitionLeaseMs: 600 })
    await set.start()
    for (const projector of PARTITIONED) {
      await waitUntil(`${projector.name} in ${partitions}`, async () => (await registry.read(projector.name))?.active.partitions === (partitions > 1 ? partitions : undefined))
      t.ok(await set.activeRunner(projector.name)!.waitFor(head, 20_000), `${projector.name}: caught up in ${partitions}`)
    }
  }
  await startWith(1)
  const before = new Map<string, string>()
  for (const projector of PARTITIONED) before.set(projector.name, (await digestProjection(store, projector, (await registry.read(projector.name))!.active)).sha256)
  await startWith(3)
  for (const projector of PARTITIONED) {
    const entry = (await registry.read(projector.name))!
    t.match(entry, { active: { build: 2, partitions: 3 }, pending: null }, `${projector.name}: rebuilt in three and switched`)
    t.equal((await digestProjection(store, projector, entry.active)).sha256, before.get(projector.name), `${projector.name}: the same documents`)
  }
  await startWith(3)
  for (const projector of PARTITIONED) t.equal((await registry.read(projector.name))!.lastBuild, 2, `${projector.name}: the same count again builds nothing`)
})
