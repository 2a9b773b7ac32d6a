import t from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { tempDir } from '../support/temp.js'

t.test('a lease write that meets another connection\'s write lock gives up at once instead of blocking the thread', async (t) => {
  const path = join(tempDir(t), 'readmodels.sqlite')
  const store = new SqliteReadStore({ path, busyTimeoutMs: 20 })
  t.teardown(() => store.close())
  t.equal(await store.acquireLease('scheduler', 'a', 10_000), true, 'taken while nobody writes')
  const other = new Database(path)
  other.exec('BEGIN IMMEDIATE')
  const started = performance.now()
  t.equal(await store.acquireLease('scheduler', 'a', 10_000), false, 'not renewed while another connection writes')
  t.ok(performance.now() - started < 500, 'and the thread was not held waiting')
  other.exec('ROLLBACK')
  other.close()
  t.equal(await store.acquireLease('scheduler', 'a', 10_000), true, 'renewed once the lock is free')
})

t.test('releasing a lease while another connection writes leaves it to lapse instead of failing or blocking', async (t) => {
  const path = join(tempDir(t), 'readmodels.sqlite')
  const store = new SqliteReadStore({ path, busyTimeoutMs: 20 })
  t.teardown(() => store.close())
  t.equal(await store.acquireLease('scheduler', 'a', 300), true)
  const other = new Database(path)
  t.teardown(() => other.close())
  other.exec('BEGIN IMMEDIATE')
  const started = performance.now()
  await t.resolves(store.releaseLease('scheduler', 'a'), 'the release does not throw')
  t.ok(performance.now() - started < 500, 'and the thread was not held waiting')
  other.exec('ROLLBACK')
  t.equal(await store.acquireLease('scheduler', 'b', 300), false, 'the lease was not released, so another owner waits')
  await new Promise((resolve) => setTimeout(resolve, 350))
  t.equal(await store.acquireLease('scheduler', 'b', 300), true, 'until it lapses')
})
