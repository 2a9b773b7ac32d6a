import t, { type Test } from 'tap'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import type { CapturedEvent } from '../../src/ingestion/captured-event.js'
import { appendCaptured } from '../../src/ingestion/append.js'
import { importHistorical } from '../../src/ingestion/historical.js'
import { IMPORT_CHUNK_APPENDED, IMPORT_STARTED, importStream } from '../../src/ingestion/import-events.js'
import { newEventId } from '../../src/kernel/ids.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { digestProjection } from '../../projections/digest.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { tally, type TallyDocuments } from '../ingestion/support/tally.js'
import { tempDir } from '../support/temp.js'

const event = (seq: number, batch: string, pad = 0): CapturedEvent => ({
  uuid: newEventId(), event: 'e', distinct_id: 'u', timestamp: new Date(0).toISOString(), properties: { seq, batch, pad: 'x'.repeat(pad) },
  set: null, set_once: null, ip: null, now: new Date(0).toISOString(), sent_at: null,
})
const range = (from: number, count: number, batch: string, pad = 0): CapturedEvent[] =>
  Array.from({ length: count }, (_, i) => event(from + i, batch, pad))
const metadata = { actor: 'test', schemaVersion: 1 }

const setup = async (t: Test, projectors: Projector[] = [tally]) => {
  const dir = tempDir(t)
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  const store = new SqliteReadStore({ path: join(dir, 'readmodels.sqlite') })
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors })
  await projections.start()
  const models = new ReadModels<TallyDocuments>({ store, registry, projectors, projections })
  t.teardown(async () => { await projections.stop(); await log.close(); await store.close() })
  return { log, store, registry, models, projections }
}

t.test('committed imports reach projectors of captured events in ledger order, between realtime events', async (t) => {
  const { log, models } = await setup(t)
  await appendCaptured(log, { environmentId: 1, requestId: 'r1', events: range(0, 3, 'live-1'), metadata })
  const first = await importHistorical(log, { environmentId: 1, batchId: 'b1', events: range(3, 5000, 'b1', 100), metadata })
  t.ok(first.data.lastRevision >= 3, 'the import spans several chunk records')
  await appendCaptured(log, { environmentId: 1, requestId: 'r2', events: range(5003, 2, 'live-2'), metadata })
  const second = await importHistorical(log, { environmentId: 1, batchId: 'b2', events: range(5005, 10, 'b2'), metadata })
  t.equal(second.ledgerRevision, 1n, 'the ledger numbers imports in commit order')
  t.ok(await models.waitFor(second.position, ['tally_order'], 10_000))
  t.same(await models.get('tally_order', '1'), { id: '1', count: 5015, lastSeq: 5014, outOfOrder: 0 })
  t.same(await models.get('tally_batches', 'b1'), { id: 'b1', count: 5000 })
})

t.test('an import written but never committed stays invisible, and its chunks are never applied raw', async (t) => {
  const { log, models } = await setup(t)
  const stream = importStream(1, 'orphan')
  await log.append(stream, [
    { id: newEventId(), type: IMPORT_STARTED, data: { environmentId: 1, batchId: 'orphan', historicalMigration: true, recordCount: 2, chunkCount: 1, sha256: '' } },
    { id: newEventId(), type: IMPORT_CHUNK_APPENDED, data: { seq: 0, events: range(0, 2, 'orphan') } },
  ], { expectedRevision: 'no_stream' })
  const later = await appendCaptured(log, { environmentId: 1, requestId: 'r', events: range(0, 1, 'live'), metadata })
  t.ok(await models.waitFor(later!, ['tally_order'], 5000))
  t.same(await models.get('tally_batches', 'orphan'), null)
  t.same(await models.get('tally_order', '1'), { id: '1', count: 1, lastSeq: 0, outOfOrder: 0 })
})

t.test('projectors that do not read captured events never see imports', async (t) => {
  const seen: string[] = []
  const other: Projector = { name: 'other', version: 1, collections: ['other'], handles: ['Counted'], apply(_view, e) { seen.push(e.type) } }
  const { log, models } = await setup(t, [other])
  const committed = await importHistorical(log, { environmentId: 1, batchId: 'b', events: range(0, 3, 'b'), metadata })
  await log.append('count-x', [{ id: newEventId(), type: 'Counted', data: {} }])
  t.ok(await models.waitFor(committed.position, ['other'], 5000))
  t.ok(await models.waitFor((await log.headPosition())!, ['other'], 5000))
  t.same(seen, ['Counted'])
})

t.test('a rebuild over imports gives the same digest, and a restart does not apply an import twice', async (t) => {
  const { log, store, registry, models, projections } = await setup(t)
  for (let b = 0; b < 4; b++) await importHistorical(log, { environmentId: 1, batchId: `b${b}`, events: range(b * 300, 300, `b${b}`, 50), metadata })
  t.ok(await models.waitFor((await log.headPosition())!, ['tally_order'], 10_000))
  const live = await digestProjection(store, tally, (await registry.read('tally'))!.active)
  await projections.rebuild('tally')
  const rebuilt = await digestProjection(store, tally, (await registry.read('tally'))!.active)
  t.equal(rebuilt.sha256, live.sha256)
  await projections.stop()
  const again = new ProjectionSet({ log, store, registry, projectors: [tally] })
  await again.start()
  t.teardown(() => again.stop())
  const last = await appendCaptured(log, { environmentId: 1, requestId: 'after', events: range(1200, 1, 'after'), metadata })
  t.ok(await again.activeRunner('tally')!.waitFor(last!, 10_000))
  t.same(await models.get('tally_order', '1'), { id: '1', count: 1201, lastSeq: 1200, outOfOrder: 0 })
})
