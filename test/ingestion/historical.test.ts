import t from 'tap'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { IMPORT_CHUNK_APPENDED, IMPORT_COMMITTED, type ImportCommittedData } from '../../src/ingestion/import-events.js'
import { APPEND_BUDGET } from '../../src/ingestion/packing.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { collect } from '../support/collect.js'
import { ingestWorld } from './support/ingest-world.js'
import { capturedRecords } from './support/log.js'
import { tally, type TallyDocuments } from './support/tally.js'

const BATCHES = 10
const PER_BATCH = 10_000

const body = (token: string, b: number): string => JSON.stringify({
  api_key: token,
  historical_migration: true,
  sent_at: new Date().toISOString(),
  batch: Array.from({ length: PER_BATCH }, (_, i) => ({
    event: 'imported', distinct_id: `user-${i % 97}`, timestamp: new Date(Date.UTC(2020, 0, 1) + (b * PER_BATCH + i) * 1000).toISOString(),
    properties: { seq: b * PER_BATCH + i, batch: `b${b}`, source: 'legacy-system', url: `https://example.com/page/${i % 13}` },
  })),
})

t.test('100,000 events migrated in batches keep their order exactly and are never half visible', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(async () => { await log.close(); await store.close() })
  const { app, models, installation } = await ingestWorld<TallyDocuments>(t, log, store, [tally])

  const seen: number[] = []
  let importing = true
  const watcher = (async () => {
    while (importing) {
      const batches = await models.find('tally_batches')
      for (const doc of batches) seen.push(doc.count)
      const order = await models.get('tally_order', String(installation.environment_id))
      if (order) seen.push(order.count % PER_BATCH === 0 ? PER_BATCH : -order.count)
      await new Promise((resolve) => setTimeout(resolve, 2))
    }
  })()

  for (let b = 0; b < BATCHES; b++) {
    const payload = body(installation.project_api_key, b)
    t.ok(payload.length <= 20 * 1024 * 1024, `batch ${b} is ${(payload.length / 1e6).toFixed(1)} MB`)
    const response = await app.inject({ method: 'POST', url: '/batch/', headers: { 'content-type': 'application/json' }, payload })
    t.equal(response.statusCode, 200, response.body)
  }
  const head = (await log.headPosition())!
  t.ok(await models.waitFor(head, ['tally_order'], 30_000))
  importing = false
  await watcher

  t.same(await models.get('tally_order', String(installation.environment_id)),
    { id: String(installation.environment_id), count: BATCHES * PER_BATCH, lastSeq: BATCHES * PER_BATCH - 1, outOfOrder: 0 }, 'every event, in order')
  t.ok(seen.length > 0, `the read model was checked ${seen.length} times while importing`)
  t.same(seen.filter((count) => count !== 0 && count !== PER_BATCH), [], 'no batch was ever seen in part')

  const all = await collect(log.readAll())
  const ledger = all.filter((e) => e.type === IMPORT_COMMITTED).map((e) => e.data as ImportCommittedData)
  t.equal(ledger.length, BATCHES)
  t.ok(ledger.every((c) => c.recordCount === PER_BATCH && c.importStream.startsWith(`import-${installation.environment_id}-`)))
  t.ok(all.filter((e) => e.type === IMPORT_CHUNK_APPENDED).every((e) => Buffer.byteLength(JSON.stringify(e.data)) < APPEND_BUDGET))
  t.same(await capturedRecords(log), [], 'nothing went through the realtime path')
})
