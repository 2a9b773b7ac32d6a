import t, { type Test } from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { comparePositions, type Position } from '../../src/eventlog/port.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { ownFilesOf } from '../../src/readstore/sqlite-shards.js'
import { buildPosition } from '../../src/readstore/build-position.js'
import { allProjectors } from '../../src/modules.js'
import { events } from '../../src/events/projection.js'
import { sessions } from '../../src/sessions/projection.js'
import { groups } from '../../src/groups/projection.js'
import { persons } from '../../src/persons/projection.js'
import { ProjectionRunner } from '../../projections/runner.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { digestProjection } from '../../projections/digest.js'
import { cliCommand, exited, runCli } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { capture, event } from './support/captured.js'

/** Their digests equal an unpartitioned runner's. */
const PARTITIONED = [events, sessions, groups]
/** Built in 4 partitions, persons have integer ids counted per partition: their digests equal those of any other number of processes. */
const BUILT = [...PARTITIONED, persons]
const PARTITIONS = 4

/** A history of 60 capture requests: 12 people, 20 sessions, groups of three types, now and then an event sent twice. */
const history = () => {
  const requests = Array.from({ length: 60 }, (_, r) => Array.from({ length: 5 }, (_, i) =>
    event(i % 2 === 0 ? '$pageview' : 'bought', `person-${(r * 5 + i) % 12}`, {
      properties: { $session_id: `s-${(r * 3 + i) % 20}`, $current_url: `https://a.test/${(r + i) % 4}` },
    })))
  // Every third request names a group of one of three types, and every fifth sets one's properties.
  for (let r = 0; r < requests.length; r += 3) requests[r]![1]!.properties['$groups'] = { [['company', 'team', 'shop'][r % 3]!]: `g-${r % 4}` }
  for (let r = 0; r < requests.length; r += 5) {
    requests[r]![3] = event('$groupidentify', 'person-0', {
      properties: { $group_type: ['team', 'company', 'shop'][r % 3]!, $group_key: `g-${r % 4}`, $group_set: { round: r } },
    })
  }
  // Every seventh request sends again, in capitals, the UUID of an event of the request before.
  for (let r = 7; r < requests.length; r += 7) requests[r]![0] = { ...requests[r]![0]!, uuid: requests[r - 1]![2]!.uuid.toUpperCase() }
  // Every fourth request identifies a person as one of three users, so users gather the persons of several partitions.
  for (let r = 2; r < requests.length; r += 4) {
    requests[r]![4] = event('$identify', `user-${r % 3}`, { properties: { $anon_distinct_id: `person-${r % 12}`, $set: { round: r } } })
  }
  return requests
}

const waitUntil = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Whether every partitioned build in `store` has applied the log up to `position`. */
const reached = async (store: SqliteReadStore, position: Position): Promise<boolean> => {
  const registry = new ProjectionRegistry(store)
  for (const projector of BUILT) {
    const build = (await registry.read(projector.name))?.active
    if (!build || build.partitions !== PARTITIONS) return false
    const at = await buildPosition(store, projector.name, build)
    if (at === null || comparePositions(at, position) < 0) return false
  }
  return true
}

/**
 * `processes` projector processes (`serve --roles projector`) on one data directory, sharing 4
 * partitions; half-way through the history one of them is killed (SIGKILL) when there are several.
 * The digests of the events, sessions, groups and persons read models they leave.
 */
const buildWith = async (t: Test, processes: number, requests: ReturnType<typeof history>): Promise<string[]> => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_PROJECTION_PARTITIONS: String(PARTITIONS), HEDGELOG_PROJECTION_LEASE_MS: '2000', PORT: '0', LOG_LEVEL: 'warn' }
  await runCli(['init', '--json'], env)
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  const store = new SqliteReadStore({ path: join(dir, 'readmodels.sqlite'), ownFiles: ownFilesOf(allProjectors) })
  const children: ChildProcess[] = []
  t.teardown(async () => {
    for (const child of children) child.kill('SIGKILL')
    await store.close()
    await log.close()
  })
  const half = requests.length / 2
  for (const request of requests.slice(0, half)) await capture(log, 1, request)
  for (let i = 0; i < processes; i++) {
    children.push(spawn(...cliCommand(['serve', '--roles', 'projector'], true), { env: { ...process.env, ...env }, stdio: 'ignore' }))
  }
  const middle = (await log.headPosition())!
  await waitUntil('the first half is applied', () => reached(store, middle))
  if (processes > 1) {
    const killed = children.shift()!
    killed.kill('SIGKILL')
    await exited(killed)
  }
  for (const request of requests.slice(half)) await capture(log, 1, request)
  const head = (await log.headPosition())!
  await waitUntil('the whole history is applied', () => reached(store, head))
  for (const child of children) child.kill('SIGTERM')
  for (const child of children) t.equal(await exited(child), 0, 'a projector process stops cleanly')
  const registry = new ProjectionRegistry(store)
  const digests: string[] = []
  for (const projector of BUILT) digests.push((await digestProjection(store, projector, (await registry.read(projector.name))!.active)).sha256)
  t.comment(`${processes} process(es): ${digests.join(' ')}`)
  return digests
}

/** The digests one unpartitioned runner leaves over the same history. */
const buildWhole = async (t: Test, requests: ReturnType<typeof history>): Promise<string[]> => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(async () => { await store.close(); await log.close() })
  for (const request of requests) await capture(log, 1, request)
  const head = (await log.headPosition())!
  const digests: string[] = []
  for (const projector of PARTITIONED) {
    const build = { version: projector.version, build: 1 }
    const runner = new ProjectionRunner({ log, store, projector, build })
    await runner.start()
    t.ok(await runner.waitFor(head, 20_000))
    await runner.stop()
    const digest = await digestProjection(store, projector, build)
    t.ok(Object.values(digest.collections).some((collection) => collection.count > 0), `${projector.name}: documents were built`)
    digests.push(digest.sha256)
  }
  return digests
}

t.test('1, 2 and 4 projector processes sharing 4 partitions, one killed half-way, leave the events, sessions and groups of one unpartitioned runner, and the same persons', async (t) => {
  const requests = history()
  const whole = await buildWhole(t, requests)
  const built = new Map<number, string[]>()
  for (const processes of [1, 2, 4]) {
    const digests = await buildWith(t, processes, requests)
    built.set(processes, digests)
    t.same(digests.slice(0, PARTITIONED.length), whole, `${processes} process(es): the digests of events, sessions and groups`)
  }
  t.equal(built.get(2)![3], built.get(1)![3], 'persons: 2 processes, one killed, give the digest of 1')
  t.equal(built.get(4)![3], built.get(1)![3], 'persons: 4 processes, one killed, give the digest of 1')
})
