import t from 'tap'
import fc from 'fast-check'
import type { EventLog, JsonObject, Position } from '../../src/eventlog/port.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { physicalCollection, type Build } from '../../src/readstore/names.js'
import { partitionOf, partitionsOf } from '../../src/readstore/partition.js'
import { persons, PERSONS } from '../../src/persons/projection.js'
import { linkKey } from '../../src/persons/links.js'
import type { CapturedEvent } from '../../src/ingestion/captured-event.js'
import { IMPORT_CHUNK_APPENDED, IMPORT_COMMITTED, importLogStream, importStream, type ImportCommittedData } from '../../src/ingestion/import-events.js'
import { newEventId, newUlid } from '../../src/kernel/ids.js'
import { ProjectionRunner } from '../../projections/runner.js'
import { digestProjection } from '../../projections/digest.js'
import { capture, event } from '../projections/support/captured.js'

const RUNS = Number(process.env['PARTITION_RUNS'] ?? 12)
/** Few distinct ids, so that merges often join persons built in different partitions. */
const IDS = ['anon-0', 'anon-1', 'anon-2', 'anon-3', 'anon-4', 'user-0', 'user-1', 'user-2', 'user-3']

const oneEvent = fc.record({
  kind: fc.constantFrom('pageview', 'pageview', 'identify', 'alias', 'merge', 'personless', 'set_once'),
  id: fc.constantFrom(...IDS),
  other: fc.constantFrom(...IDS),
  value: fc.integer({ min: 0, max: 5 }),
})
type OneEvent = typeof oneEvent extends fc.Arbitrary<infer E> ? E : never

const historyArbitrary = fc.record({
  /** Capture requests of a few events each; an import (chunks of events) now and then. */
  requests: fc.array(fc.tuple(fc.boolean(), fc.array(oneEvent, { minLength: 1, maxLength: 5 })), { minLength: 4, maxLength: 24 }),
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
  /** The order in which the partitions' runners start, each once the ones before have gone as far as they can. */
  order: fc.shuffledSubarray([0, 1, 2, 3], { minLength: 4, maxLength: 4 }),
})

const captured = (one: OneEvent): CapturedEvent => {
  switch (one.kind) {
    case 'identify': return event('$identify', one.id, { properties: { $anon_distinct_id: one.other, $set: { plan: `p${one.value}` } } })
    case 'alias': return event('$create_alias', one.id, { properties: { alias: one.other } })
    case 'merge': return event('$merge_dangerously', one.id, { properties: { alias: one.other } })
    case 'personless': return event('$pageview', one.id, { properties: { $process_person_profile: false } })
    case 'set_once': return event('signed_up', one.id, { properties: { $set_once: { first: one.value } } })
    default: return event('$pageview', one.id, { properties: { $set: { seen: one.value }, $current_url: `https://a.test/${one.value}` } })
  }
}

/** Appends a committed historical import holding `chunks`, as `/batch/` with `historical_migration` does. */
const importChunks = async (log: EventLog, environmentId: number, chunks: CapturedEvent[][]): Promise<void> => {
  const stream = importStream(environmentId, newUlid())
  const written = await log.append(stream, chunks.map((events, seq) => ({ id: newEventId(), type: IMPORT_CHUNK_APPENDED, data: { seq, events } })))
  const last = Number(written.nextExpectedRevision)
  const data: ImportCommittedData = {
    environmentId, batchId: stream, importStream: stream, firstRevision: last - chunks.length + 1, lastRevision: last,
    recordCount: chunks.reduce((sum, chunk) => sum + chunk.length, 0), sha256: '0'.repeat(64),
  }
  await log.append(importLogStream(environmentId), [{ id: newEventId(), type: IMPORT_COMMITTED, data }])
}

const appendHistory = async (log: EventLog, requests: (readonly [boolean, OneEvent[]])[]): Promise<void> => {
  for (const [imported, request] of requests) {
    const events = request.map(captured)
    if (imported) await importChunks(log, 1, events.length > 2 ? [events.slice(0, 2), events.slice(2)] : [events])
    else await capture(log, 1, events)
  }
}

const runner = (log: EventLog, store: SqliteReadStore, build: Build, count: number, index: number, batchSize: number) =>
  new ProjectionRunner({ log, store, projector: persons, build, partition: { index, count }, batchSize, idleCheckpointMs: 0 })

/** Resolves once `one` has applied the whole log or has not moved for a while. */
const settled = async (one: ProjectionRunner, head: Position): Promise<void> => {
  let still = 0
  let last = one.position
  while (still < 5 && !(await one.waitFor(head, 20))) {
    still = one.position === last ? still + 1 : 0
    last = one.position
  }
}

/**
 * Builds persons in `count` partitions: at once, or one runner after another in `order`, each
 * started once those before have gone as far as they could alone. With `cut`, partition 0's
 * runner stops there and another takes over.
 */
const build = async (
  log: EventLog, store: SqliteReadStore, build: Build, count: number, batchSize: number, cut: number | null, order: readonly number[] | null = null,
): Promise<void> => {
  const head = (await log.headPosition())!
  const runners = partitionsOf(count).map(({ index }) => runner(log, store, build, count, index, batchSize))
  if (order === null) await Promise.all(runners.map((one) => one.start()))
  else {
    for (const index of order.filter((one) => one < count)) {
      await runners[index]!.start()
      await settled(runners[index]!, head)
    }
  }
  if (cut !== null) {
    const at = BigInt(Math.floor(Number(head.commit) * cut))
    await runners[0]!.waitFor({ commit: at, prepare: at }, 20_000)
    await runners[0]!.stop()
    runners[0] = runner(log, store, build, count, 0, batchSize)
    await runners[0].start()
  }
  for (const one of runners) {
    if (!(await one.waitFor(head, 20_000))) throw new Error(`${one.checkpointName} did not catch up (${one.status}, ${one.lastError?.message ?? 'no error'})`)
  }
  for (const one of runners) await one.stop()
}

/** Every document of the build's public collections; persons without their integer id, which is counted per partition. */
const documents = async (store: SqliteReadStore, build: Build): Promise<Record<string, [string, JsonObject][]>> => {
  const all: Record<string, [string, JsonObject][]> = {}
  for (const collection of persons.collections) {
    const docs: [string, JsonObject][] = []
    for await (const { id, doc } of store.scan(physicalCollection(collection, build))) {
      if (collection === 'person_counters') continue
      if (collection === PERSONS) {
        const { id: _number, ...rest } = doc
        docs.push([id, rest])
      } else {
        docs.push([id, doc])
      }
    }
    all[collection] = docs
  }
  return all
}

/** Appends `requests` to a fresh log, builds persons with one runner (build 1), and gives `body` that build's documents. */
const withHistory = async (
  requests: (readonly [boolean, OneEvent[]])[],
  body: (log: EventLog, store: SqliteReadStore, whole: Record<string, [string, JsonObject][]>) => Promise<void>,
): Promise<void> => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  try {
    await appendHistory(log, requests)
    const one: Build = { version: persons.version, build: 1 }
    await build(log, store, one, 1, 5, null)
    await body(log, store, await documents(store, one))
  } finally {
    await log.close()
    await store.close()
  }
}

t.test('persons built in 2 and 4 partitions, merges crossing them, hold what one runner builds', async (t) => {
  let runs = 0
  let crossing = 0
  await fc.assert(fc.asyncProperty(historyArbitrary, async ({ requests, cut, order }) => withHistory(requests, async (log, store, whole) => {
    if (whole[PERSONS]!.length === 0) throw new Error('no person built')
    for (const [number, count, batch, cutAt, staggered] of [[2, 2, 5, null, true], [3, 4, 3, cut, false], [4, 4, 50, null, true]] as const) {
      const built: Build = { version: persons.version, build: number }
      await build(log, store, built, count, batch, cutAt, staggered ? order : null)
      const docs = await documents(store, built)
      t.same(docs, whole, `${count} partitions, batches of ${batch}${cutAt === null ? '' : ', one runner replaced'}${staggered ? `, started in the order ${order.join(', ')}` : ''}: the documents of one runner`)
    }
    const paced = await digestProjection(store, persons, { version: persons.version, build: 3 })
    const even = await digestProjection(store, persons, { version: persons.version, build: 4 })
    t.equal(paced.sha256, even.sha256, 'the same partition count gives the same digest, person ids included, at any pace')
    if (requests.some(([, request]) => request.some((e) => e.kind !== 'pageview' && e.kind !== 'personless' && e.kind !== 'set_once' &&
      partitionOf(linkKey(1, e.id), 4) !== partitionOf(linkKey(1, e.other), 4)))) crossing++
    runs++
  })), { numRuns: RUNS })
  t.equal(runs, RUNS)
  t.ok(crossing > RUNS / 2, `most histories merge ids of different partitions (${crossing} of ${RUNS})`)
})

/** Every order of `items`. */
const orders = (items: readonly number[]): number[][] =>
  items.length <= 1 ? [[...items]] : items.flatMap((item, i) => orders([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]))

const view = (kind: OneEvent['kind'], id: string, other = id, value = 0): OneEvent => ({ kind, id, other, value })

t.test('a set joined twice in one log event is read from every partition its persons came from', async (t) => {
  // anon-3 and user-0 are in partition 0 of 4, anon-0 in 1, user-2 in 2, and anon-4, user-1 and user-3 in 3.
  t.same(['anon-3', 'user-0', 'anon-0', 'user-2', 'anon-4', 'user-1', 'user-3'].map((id) => partitionOf(linkKey(1, id), 4)), [0, 0, 1, 2, 3, 3, 3])
  const histories: Record<string, (readonly [boolean, OneEvent[]])[]> = {
    // user-2's person (partition 2) joins anon-3's set (0), which then joins user-1's (3): partition 3 reads persons of 0 and 2.
    'two merges of one request': [
      [false, [view('pageview', 'anon-3')]], [false, [view('pageview', 'user-2', 'x', 1)]],
      [false, [view('pageview', 'user-0', 'x', 2)]], [false, [view('pageview', 'user-1', 'x', 3)]],
      [false, [view('merge', 'user-1', 'user-0')]],
      [false, [view('merge', 'anon-3', 'user-2'), view('merge', 'user-1', 'anon-3')]],
    ],
    // The same chain across the two chunks of an import.
    'the chunks of one import': [
      [false, [view('identify', 'anon-3', 'anon-0'), view('pageview', 'user-2')]],
      [false, [view('merge', 'user-3', 'anon-0'), view('identify', 'user-3', 'anon-4')]],
      [true, [view('merge', 'anon-4', 'user-2', 2), view('identify', 'user-1', 'user-0', 2), view('identify', 'user-0', 'user-3', 2)]],
    ],
  }
  for (const [name, requests] of Object.entries(histories)) {
    await withHistory(requests, async (log, store, whole) => {
      const differing: string[] = []
      for (const [n, order] of orders([0, 1, 2, 3]).entries()) {
        const built: Build = { version: persons.version, build: n + 2 }
        await build(log, store, built, 4, 50, null, order)
        if (JSON.stringify(await documents(store, built)) !== JSON.stringify(whole)) differing.push(order.join(''))
      }
      t.same(differing, [], `${name}: 4 partitions started one after another, in each of the 24 orders, build what one runner builds`)
    })
  }
})

t.test('a merge of two persons in different partitions waits for the partition the source comes from', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(async () => { await log.close(); await store.close() })
  const [anon, user] = (() => {
    const anonId = IDS.find((id) => id.startsWith('anon') && partitionOf(linkKey(1, id), 2) === 0)!
    const userId = IDS.find((id) => id.startsWith('user') && partitionOf(linkKey(1, id), 2) === 1)!
    return [anonId, userId]
  })()
  await capture(log, 1, [event('$pageview', anon, { properties: { $set: { from: 'anon', device: 'phone' } } })])
  await capture(log, 1, [event('$pageview', user, { properties: { $set: { from: 'user', email: 'u@example.com' } } })])
  await capture(log, 1, [event('$identify', user, { properties: { $anon_distinct_id: anon } })])
  await capture(log, 1, [event('$pageview', anon, { properties: { $set: { after: true } } })])
  const built: Build = { version: persons.version, build: 1 }
  const head = (await log.headPosition())!
  // The partition that receives the merge runs alone first: it must stop at the merge.
  const receiver = runner(log, store, built, 2, 1, 10)
  await receiver.start()
  t.notOk(await receiver.waitFor(head, 300), 'the receiving partition does not pass the merge alone')
  const sender = runner(log, store, built, 2, 0, 10)
  await sender.start()
  t.ok(await receiver.waitFor(head, 10_000), 'it goes on once the other partition has committed what precedes the merge')
  t.ok(await sender.waitFor(head, 10_000))
  await receiver.stop()
  await sender.stop()
  const docs = await documents(store, built)
  t.equal(docs[PERSONS]!.length, 1, 'one person')
  const person = docs[PERSONS]![0]![1]
  const { $creator_event_uuid: _creator, ...properties } = person['properties'] as JsonObject
  t.same(properties, { from: 'user', device: 'phone', email: 'u@example.com', after: true }, 'the merged properties, the target\'s first, then the later event\'s')
  t.same([...(person['distinct_ids'] as string[])].sort(), [anon, user].sort())
})
