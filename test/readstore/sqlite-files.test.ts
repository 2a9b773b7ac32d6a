import t from 'tap'
import Database from 'better-sqlite3'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { SqliteFile } from '../../src/readstore/sqlite-file.js'
import { QUARANTINE } from '../../src/readstore/names.js'
import { ownFilesOf } from '../../src/readstore/sqlite-shards.js'
import { allProjectors } from '../../src/modules.js'
import { tempDir } from '../support/temp.js'

const at = (n: number) => ({ commit: BigInt(n), prepare: BigInt(n) })

/** Whether the file at `path` has the collection's table. */
const holds = (path: string, collection: string): boolean => {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(`c_${collection}`) !== undefined
  } finally {
    db.close()
  }
}

/** The files the service opens: one for each projection of captured events. */
const OWN_FILES = ownFilesOf(allProjectors)

t.test('the projections of captured events have files of their own, holding every collection they own', async (t) => {
  t.same(Object.keys(OWN_FILES).sort(), ['events', 'groups', 'persons', 'sessions'])
  for (const [name, collections] of Object.entries(OWN_FILES)) {
    const projector = allProjectors.find((p) => p.name === name)!
    t.same(collections, [...projector.collections, ...(projector.partitionState ?? [])], `${name} owns what its file holds, its partitions' own state included`)
  }
})

t.test('a build of a projection with a file of its own keeps its documents and checkpoint there; the rest stays in the main file', async (t) => {
  const dir = tempDir(t)
  const main = join(dir, 'readmodels.sqlite')
  const store = new SqliteReadStore({ path: main, ownFiles: OWN_FILES })
  await store.commit({ checkpoint: 'events@v1#2', expected: null, next: at(3), changes: [{ collection: 'events_v1_b2', id: 'e1', doc: { n: 1 } }] })
  await store.commit({ checkpoint: 'dashboards@v1#1', expected: null, next: at(4), changes: [{ collection: 'dashboards_v1_b1', id: 'd1', doc: { n: 2 } }] })
  await store.close()

  t.ok(holds(join(dir, 'readmodels-events.sqlite'), 'events_v1_b2'), 'the events are in their own file')
  t.notOk(holds(main, 'events_v1_b2'), 'and not in the main file')
  t.ok(holds(main, 'dashboards_v1_b1'), 'dashboards are in the main file')
  const events = new SqliteFile({ path: join(dir, 'readmodels-events.sqlite') })
  t.same(await events.checkpoint('events@v1#2'), at(3), 'the checkpoint moved in the same file')
  await events.close()

  const again = new SqliteReadStore({ path: main, ownFiles: OWN_FILES })
  t.same(await again.get('events_v1_b2', 'e1'), { n: 1 }, 'read back through the store')
  t.same(await again.checkpoint('events@v1#2'), at(3))
  t.same(await again.get('dashboards_v1_b1', 'd1'), { n: 2 })
  await again.close()
})

t.test('a build whose tables were made in the main file before stays there', async (t) => {
  const dir = tempDir(t)
  const main = join(dir, 'readmodels.sqlite')
  const before = new SqliteFile({ path: main })
  await before.commit({ checkpoint: 'persons@v2#1', expected: null, next: at(1), changes: [{ collection: 'persons_v2_b1', id: 'p', doc: { n: 1 } }] })
  await before.close()

  const store = new SqliteReadStore({ path: main, ownFiles: OWN_FILES })
  t.same(await store.checkpoint('persons@v2#1'), at(1), 'its checkpoint is read from the main file')
  await store.commit({
    checkpoint: 'persons@v2#1', expected: at(1), next: at(2),
    changes: [{ collection: 'persons_v2_b1', id: 'q', doc: { n: 2 } }, { collection: 'person_counters_v2_b1', id: '1', doc: { last_id: 2 } }],
  })
  await store.commit({ checkpoint: 'persons@v2#2', expected: null, next: at(2), changes: [{ collection: 'persons_v2_b2', id: 'p', doc: { n: 3 } }] })
  await store.close()
  t.ok(holds(main, 'person_counters_v2_b1'), 'the old build writes its other collections beside its first')
  t.ok(holds(join(dir, 'readmodels-persons.sqlite'), 'persons_v2_b2'), 'a new build goes to the file of its own')
})

t.test('a commit that names documents of another file than its checkpoint writes nothing', async (t) => {
  const store = new SqliteReadStore({ path: join(tempDir(t), 'readmodels.sqlite'), ownFiles: OWN_FILES })
  t.teardown(() => store.close())
  await t.rejects(store.commit({
    checkpoint: 'events@v1#1', expected: null, next: at(1),
    changes: [{ collection: 'events_v1_b1', id: 'e', doc: { n: 1 } }, { collection: 'sessions_v1_b1', id: 's', doc: { n: 1 } }],
  }), TypeError)
  t.equal(await store.checkpoint('events@v1#1'), null, 'the checkpoint did not move')
  t.equal(await store.get('events_v1_b1', 'e'), null)
})

t.test('quarantined events are kept with their build and read by checkpoint, or across every file', async (t) => {
  const store = new SqliteReadStore({ path: join(tempDir(t), 'readmodels.sqlite'), ownFiles: OWN_FILES })
  t.teardown(() => store.close())
  await store.ensureIndex(QUARANTINE, ['checkpoint'])
  const record = (checkpoint: string, n: number) => ({ collection: QUARANTINE, id: `${checkpoint}|${n}`, doc: { id: `${checkpoint}|${n}`, checkpoint, n } })
  await store.commit({ checkpoint: 'events@v1#1', expected: null, next: at(5), changes: [record('events@v1#1', 5), record('events@v1#1', 2)] })
  await store.commit({ checkpoint: 'dashboards@v1#1', expected: null, next: at(3), changes: [record('dashboards@v1#1', 3)] })

  t.same((await store.find(QUARANTINE, { where: { checkpoint: 'events@v1#1' } })).map((doc) => doc['n']), [2, 5], 'by checkpoint, from its file')
  t.equal(await store.count(QUARANTINE, { checkpoint: 'dashboards@v1#1' }), 1)
  t.equal(await store.count(QUARANTINE), 3, 'counted over every file')
  t.same((await store.find(QUARANTINE, { orderBy: [['n', 'desc']], limit: 2 })).map((doc) => doc['n']), [5, 3], 'ordered and limited over every file')
  t.same(await store.get(QUARANTINE, 'events@v1#1|2'), { id: 'events@v1#1|2', checkpoint: 'events@v1#1', n: 2 }, 'one record by its id')
  const ids: string[] = []
  for await (const { id } of store.scan(QUARANTINE)) ids.push(id)
  t.same(ids, ['dashboards@v1#1|3', 'events@v1#1|2', 'events@v1#1|5'], 'scanned in id order over every file')
})

t.test('a projection commits in its own file while another connection holds the main file\'s write lock', async (t) => {
  const dir = tempDir(t)
  const main = join(dir, 'readmodels.sqlite')
  const store = new SqliteReadStore({ path: main, ownFiles: OWN_FILES, busyTimeoutMs: 20 })
  t.teardown(() => store.close())
  await store.commit({ checkpoint: 'dashboards@v1#1', expected: null, next: at(1), changes: [] })
  const other = new Database(main)
  other.pragma('journal_mode = WAL')
  other.exec('BEGIN IMMEDIATE')
  t.teardown(() => other.close())
  await store.commit({ checkpoint: 'events@v1#1', expected: null, next: at(2), changes: [{ collection: 'events_v1_b1', id: 'e', doc: { n: 1 } }] })
  t.same(await store.checkpoint('events@v1#1'), at(2), 'the events committed')
  await t.rejects(store.commit({ checkpoint: 'dashboards@v1#1', expected: at(1), next: at(3), changes: [] }), /locked|busy/i, 'the main file is still locked')
  other.exec('ROLLBACK')
})

t.test('every file of the store lies beside the main one', async (t) => {
  const dir = tempDir(t)
  const main = join(dir, 'readmodels.sqlite')
  const store = new SqliteReadStore({ path: main, ownFiles: OWN_FILES })
  await store.close()
  t.same(SqliteReadStore.paths(main, OWN_FILES), [main, ...['persons', 'groups', 'sessions', 'events'].map((name) => join(dir, `readmodels-${name}.sqlite`))])
  for (const path of SqliteReadStore.paths(main, OWN_FILES)) t.ok(existsSync(path), `${path} exists`)
})

t.test('a column made before booleans were kept as blobs keeps 1 and 0 for them, and queries still tell them from numbers', async (t) => {
  const path = join(tempDir(t), 'readmodels.sqlite')
  const before = new Database(path)
  before.exec('CREATE TABLE "c_flags" (id TEXT PRIMARY KEY, body TEXT NOT NULL, "f:v")')
  const insert = before.prepare('INSERT INTO "c_flags" (id, body, "f:v") VALUES (?, ?, ?)')
  insert.run('yes', JSON.stringify({ v: true }), 1)
  insert.run('one', JSON.stringify({ v: 1 }), 1)
  before.close()
  const file = new SqliteFile({ path })
  t.teardown(() => file.close())
  await file.ensureIndex('flags', ['v', 'w'])
  await file.commit({ checkpoint: 'flags', expected: null, next: at(1), changes: [{ collection: 'flags', id: 'no', doc: { v: false, w: true } }] })
  const ids = async (query: Parameters<SqliteFile['find']>[1]) => (await file.find<{ v?: unknown }>('flags', query)).map((doc) => JSON.stringify(doc.v))
  t.same(await ids({ where: { v: 1 } }), ['1'])
  t.same(await ids({ where: { v: true } }), ['true'])
  t.same(await ids({ where: { v: 0 } }), [])
  t.same(await ids({ range: { v: { gte: 0 } } }), ['1'])
  const after = new Database(path, { readonly: true })
  t.teardown(() => after.close())
  t.same(after.prepare('SELECT "f:v", "v:w" FROM "c_flags" WHERE id = ?').raw(true).get('no'), [0, Buffer.from('true')],
    'the old column holds false as 0; a column made now holds true as its JSON text')
})

t.test('pages in an order declared unique are read in the order of the index on those fields, without sorting', async (t) => {
  const path = join(tempDir(t), 'readmodels.sqlite')
  const file = new SqliteFile({ path })
  t.teardown(() => file.close())
  await file.ensureIndex('timed', ['env', 'at', 'uid'])
  const docs = Array.from({ length: 5 }, (_, i) => ({ env: 1, at: `2024-01-0${1 + (i % 2)}`, uid: `u${4 - i}` }))
  await file.commit({ checkpoint: 'timed', expected: null, next: at(1), changes: docs.map((doc, i) => ({ collection: 'timed', id: `d${i}`, doc })) })
  const query = { where: { env: 1 }, range: { at: { gte: '2024-01-01' } }, orderBy: [['at', 'asc'], ['uid', 'asc']], limit: 2 } as const
  const plans = async (unique: boolean): Promise<string[]> => {
    const found = await file.find<{ uid: string }>('timed', { ...query, uniqueOrder: unique, after: ['2024-01-01', 'u0'] })
    t.same(found.map((doc) => doc.uid), ['u2', 'u4'], unique ? 'declared unique' : 'with the store\'s tie-break')
    const sql = [...(file as unknown as { statements: Map<string, unknown> }).statements.keys()].find((text) => text.includes('LIMIT') && (unique ? !text.includes('id ASC') : text.includes('id ASC')))!
    const plain = new Database(path, { readonly: true })
    t.teardown(() => plain.close())
    const parameters = (sql.match(/\?/g) ?? []).map(() => null)
    return (plain.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]).map((row) => row.detail)
  }
  t.match((await plans(false)).join('\n'), /TEMP B-TREE/, 'a tie-break by id is a sort the index does not hold')
  t.notMatch((await plans(true)).join('\n'), /TEMP B-TREE/, 'an order declared unique is the index\'s own')
})
