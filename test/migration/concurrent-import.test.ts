import t from 'tap'
import { writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { IMPORT_CHUNK_APPENDED } from '../../src/ingestion/import-events.js'
import { importHistorical } from '../../src/ingestion/historical.js'
import { ImportLedger } from '../../src/ingestion/import-ledger.js'
import { IMPORT_LEASE_TAKEN, importLeaseStream, leaseFree } from '../../src/migration/import-lease.js'
import { chunkKey, importEvents } from '../../src/migration/import.js'
import { event } from '../projections/support/captured.js'
import { runCli } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { dataDir, sampleEvent } from './support/migration.js'

const chunkRecords = async (log: SqliteEventLog): Promise<number> => {
  let count = 0
  for await (const record of log.readAll()) if (record.type === IMPORT_CHUNK_APPENDED) count++
  return count
}

t.test('two imports of one file at once: the second waits for the first, adds nothing, and export lists every uuid once', async (t) => {
  const dir = tempDir(t)
  const { log, installation } = await dataDir(dir)
  await log.close()
  const total = 12_000
  const file = join(tempDir(t), 'events.ndjson')
  writeFileSync(file, Array.from({ length: total }, (_, n) => JSON.stringify(sampleEvent(n))).join('\n') + '\n')
  const env = { HEDGELOG_DATA_DIR: dir }
  const args = ['import', '--environment', String(installation.environment_id), '--chunk-lines', '500', file]

  const runs = await Promise.all([runCli(args, env), runCli(args, env)])
  for (const run of runs) t.equal(run.code, 0, run.stderr)
  const [waited, ...others] = [...runs].sort((a, b) => Number(b.stderr.includes('waiting')) - Number(a.stderr.includes('waiting')))
  t.equal(others.filter((run) => run.stderr.includes('waiting')).length, 0, 'only one of them waited')
  t.match(waited!.stderr, /another import of the same data is running \(pid \d+ on .+\): waiting for it to end/)
  t.match(waited!.stderr, `imported ${total} events: 0 chunks written, ${total / 500} already imported`)
  t.match(others[0]!.stderr, `imported ${total} events: ${total / 500} chunks written, 0 already imported`)

  const exported = await runCli(['export', '--environment', String(installation.environment_id)], env)
  t.equal(exported.code, 0, exported.stderr)
  const uuids = exported.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { uuid: string }).uuid)
  t.equal(uuids.length, total, 'as many events as lines')
  t.equal(new Set(uuids).size, total, 'each uuid once')

  const reopened = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  t.teardown(() => reopened.close())
  t.equal(await chunkRecords(reopened), total / 500, 'no chunk was written twice, even uncommitted')
})

t.test('a lease is free when released, run out, or held by a process of this host that has ended', async (t) => {
  const holder = { host: 'box', pid: 100, run: 'r' }
  const here = { host: 'box', alive: (pid: number) => pid === 100, now: 1000 }
  t.ok(leaseFree({ revision: 'no_stream', holder: null, expiresAt: 0 }, here), 'never taken')
  t.notOk(leaseFree({ revision: 0n, holder, expiresAt: 2000 }, here), 'held by a live process')
  t.ok(leaseFree({ revision: 0n, holder, expiresAt: 1000 }, here), 'run out')
  t.ok(leaseFree({ revision: 0n, holder: { ...holder, pid: 101 }, expiresAt: 2000 }, here), 'its process ended')
  t.notOk(leaseFree({ revision: 0n, holder: { ...holder, host: 'other', pid: 101 }, expiresAt: 2000 }, here), 'another host\'s process cannot be asked: its time must run out')
})

t.test('a lease left by a killed import on this host is taken at once; one of another host once it runs out', async (t) => {
  const dir = tempDir(t)
  const { log, installation } = await dataDir(dir)
  t.teardown(() => log.close())
  const environmentId = installation.environment_id
  const lines = Array.from({ length: 4 }, (_, n) => JSON.stringify(sampleEvent(n)))
  const source = async function* () { yield* lines }
  const ended = spawnSync(process.execPath, ['-e', '0']).pid!
  // What a run killed in the middle leaves: its lease, never released.
  await log.append(importLeaseStream(environmentId, chunkKey(environmentId, 1, lines.slice(0, 2))), [{
    id: crypto.randomUUID(), type: IMPORT_LEASE_TAKEN, data: { holder: { host: hostname(), pid: ended, run: 'killed' }, expiresAt: Date.now() + 60_000 },
  }], { expectedRevision: 'no_stream' })
  const waits: unknown[] = []
  const started = Date.now()
  const result = await importEvents({ log, environmentId, chunkLines: 2, onWait: (holder) => waits.push(holder) }, source())
  t.same([result.written, result.skipped], [2, 0])
  t.same(waits, [], 'no wait for a process that has ended')
  t.ok(Date.now() - started < 5000)

  const other = Array.from({ length: 2 }, (_, n) => JSON.stringify(sampleEvent(100 + n)))
  await log.append(importLeaseStream(environmentId, chunkKey(environmentId, 1, other)), [{
    id: crypto.randomUUID(), type: IMPORT_LEASE_TAKEN, data: { holder: { host: 'elsewhere', pid: 1, run: 'remote' }, expiresAt: Date.now() + 300 },
  }], { expectedRevision: 'no_stream' })
  const again = await importEvents({ log, environmentId, chunkLines: 2, onWait: (holder) => waits.push(holder), lease: { pollMs: 20 } }, (async function* () { yield* other })())
  t.equal(again.written, 1)
  t.match(waits, [{ host: 'elsewhere' }], 'it waited for the other host\'s lease to run out')
})

t.test('the ledger commits a batch key once, even for two writers that both read it before either committed', async (t) => {
  const dir = tempDir(t)
  const { log, installation } = await dataDir(dir)
  t.teardown(() => log.close())
  const environmentId = installation.environment_id
  const ledgers = [new ImportLedger(environmentId), new ImportLedger(environmentId)]
  for (const ledger of ledgers) await ledger.refresh(log)
  const events = [event('imported', 'u')]
  const outcomes = await Promise.all(ledgers.map((ledger, i) =>
    importHistorical(log, { environmentId, batchId: `samekey_${i}`, events, metadata: {} }, ledger)))
  t.equal(outcomes.filter((o) => o !== null).length, 1, 'one commit')
  t.equal(outcomes.filter((o) => o === null).length, 1, 'the other is told the key is taken')
  const another = await importHistorical(log, { environmentId, batchId: 'otherkey_0', events, metadata: {} }, ledgers[0])
  t.not(another, null, 'another key still commits')
})
