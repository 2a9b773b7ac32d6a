import t, { type Test } from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import type { EventLog, Position } from '../../src/eventlog/port.js'
import type { CapturedEvent, EventsCapturedData } from '../../src/ingestion/captured-event.js'
import { appendCaptured } from '../../src/ingestion/append.js'
import { importHistorical } from '../../src/ingestion/historical.js'
import { newEventId } from '../../src/kernel/ids.js'
import type { CommitBatch, DocumentChange, ReadStore, StagingKey } from '../../src/readstore/port.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { capturedEvents } from '../../src/ingestion/captured-projection.js'
import { digestProjection } from '../../projections/digest.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ProjectionRunner } from '../../projections/runner.js'

/** One document per captured event, and a running total: an import changes as many documents as it holds events. */
const seen: Projector = {
  name: 'seen',
  version: 1,
  collections: ['seen', 'seen_total'],
  handles: capturedEvents.handles,
  expand: capturedEvents.expand,
  apply(view, event) {
    const { events } = event.data as EventsCapturedData
    for (const one of events) view.put('seen', one.uuid, { id: one.uuid, seq: one.properties['seq'] as number })
    const total = view.get<{ id: string; n: number }>('seen_total', 'all')
    view.put('seen_total', 'all', { id: 'all', n: (total?.n ?? 0) + events.length })
  },
}

const SEEN = 'seen_v1_b1'
const TOTAL = 'seen_total_v1_b1'
const IMPORTED = 400

const captured = (seq: number): CapturedEvent => ({
  uuid: newEventId(), event: 'e', distinct_id: 'u', timestamp: new Date(0).toISOString(), properties: { seq, pad: 'x'.repeat(2000) },
  set: null, set_once: null, ip: null, now: new Date(0).toISOString(), sent_at: null,
})
const metadata = { actor: 'test', schemaVersion: 1 }

/** A live event, applied by `run` before anything else is written. */
const live = async (log: EventLog, run: ProjectionRunner): Promise<void> => {
  const position = await appendCaptured(log, { environmentId: 1, requestId: 'live', events: [captured(-1)], metadata })
  t.ok(await run.waitFor(position!, 10_000))
}

/** An import of IMPORTED events in several chunks; the position of its commit. */
const importBig = async (log: EventLog): Promise<Position> => {
  const committed = await importHistorical(log, { environmentId: 1, batchId: 'big', events: Array.from({ length: IMPORTED }, (_, i) => captured(i)), metadata })
  t.ok(committed.data.lastRevision >= 3, 'the import spans several chunks')
  return committed.position
}

/** What a reader sees of the build: how many event documents, and the total. */
const observe = async (store: ReadStore) => ({
  docs: await store.count(SEEN),
  total: (await store.get<{ id: string; n: number }>(TOTAL, 'all'))?.n ?? 0,
})

/** A store that counts staging calls and publishing commits, lets a reader look after each part, and can fail one part. */
const watched = (store: ReadStore, failPart?: number) => {
  const parts: number[] = []
  const publishes: CommitBatch[] = []
  const seenBetweenParts: { docs: number; total: number }[] = []
  let failed: () => void = () => undefined
  const failure = new Promise<void>((resolve) => { failed = resolve })
  const wrapped: ReadStore = Object.create(store, {
    stage: {
      value: async (key: StagingKey, changes: readonly DocumentChange[]) => {
        if (parts.length + 1 === failPart) {
          failed()
          throw Object.assign(new Error('read store went away'), { code: 'SQLITE_IOERR' })
        }
        await store.stage(key, changes)
        parts.push(changes.length)
        seenBetweenParts.push(await observe(store))
      },
    },
    commit: {
      value: async (batch: CommitBatch) => {
        await store.commit(batch)
        if (batch.publish) publishes.push(batch)
      },
    },
  })
  return { store: wrapped, parts, publishes, seenBetweenParts, failure }
}

const runner = async (t: Test, log: EventLog, store: ReadStore, build = 1) => {
  const run = new ProjectionRunner({ log, store, projector: seen, build: { version: 1, build }, importPartSize: 50 })
  await run.start()
  t.teardown(() => run.stop())
  return run
}

const open = (t: Test) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(async () => { await log.close(); await store.close() })
  return { log, store }
}

t.test('an import larger than several parts is staged part by part and published once, never half visible', async (t) => {
  const { log, store } = open(t)
  const watch = watched(store)
  const run = await runner(t, log, watch.store)
  await live(log, run)
  const polled: { docs: number; total: number }[] = []
  let polling = true
  const poller = (async () => {
    while (polling) {
      polled.push(await observe(store))
      await new Promise((resolve) => setImmediate(resolve))
    }
  })()
  const imported = await importBig(log)
  t.ok(await run.waitFor(imported, 10_000))
  polling = false
  await poller
  t.ok(watch.parts.length >= 4, `staged in ${watch.parts.length} parts`)
  t.ok(watch.parts.every((size) => size <= 50 + 130), 'each part holds about a part size of documents')
  t.equal(watch.publishes.length, 1, 'one commit publishes the import')
  t.same(watch.publishes[0]!.changes, [], 'and carries no documents of its own')
  t.ok(watch.seenBetweenParts.every((seen) => seen.docs === 1 && seen.total === 1), 'between parts a reader sees only the live event')
  t.ok(polled.length > 0)
  t.same(polled.filter((seen) => !(seen.docs === 0 && seen.total === 0) && !(seen.docs === 1 && seen.total === 1) && !(seen.docs === IMPORTED + 1 && seen.total === IMPORTED + 1)), [],
    'a reader polling meanwhile sees the import whole or not at all')
  t.same(await observe(store), { docs: IMPORTED + 1, total: IMPORTED + 1 })
})

t.test('a store failure between parts leaves nothing visible, and a restart applies the import once, as a rebuild does', async (t) => {
  const { log, store } = open(t)
  const watch = watched(store, 3)
  const first = await runner(t, log, watch.store)
  await live(log, first)
  const imported = await importBig(log)
  await watch.failure
  await first.stop()
  t.equal(watch.parts.length, 2, 'two parts were staged before the failure')
  t.same(await observe(store), { docs: 1, total: 1 }, 'readers see nothing of the import')
  t.ok(first.position === null || first.position.commit < imported.commit, 'the checkpoint stayed before the import')

  const second = await runner(t, log, store)
  t.ok(await second.waitFor(imported, 10_000))
  t.same(await observe(store), { docs: IMPORTED + 1, total: IMPORTED + 1 }, 'the whole import is visible, once')
  const seqs = (await store.find<{ seq: number }>(SEEN, { orderBy: [['seq', 'asc']], fields: ['seq'] })).map((doc) => doc.seq)
  t.same(seqs, Array.from({ length: IMPORTED + 1 }, (_, i) => i - 1))

  const rebuild = await runner(t, log, store, 2)
  t.ok(await rebuild.waitFor(imported, 10_000))
  const kept = await digestProjection(store, seen, { version: 1, build: 1 })
  const rebuilt = await digestProjection(store, seen, { version: 1, build: 2 })
  t.equal(kept.collections['seen']!.count, IMPORTED + 1)
  t.equal(rebuilt.sha256, kept.sha256, 'the restarted build and a fresh rebuild agree')
})
