import t from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import type { CommitBatch } from '../../src/readstore/port.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { events } from '../../projections/events.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { tempDir } from '../support/temp.js'
import { capture, event } from './support/captured.js'

/** The read store as it is, noting which indexes a build's table has whenever that build commits. */
class IndexWatchingStore extends SqliteReadStore {
  readonly seen = new Map<string, string[]>()
  constructor(private readonly path: string, private readonly watched: string) {
    super({ path })
  }

  indexesOf(table: string): string[] {
    const db = new Database(this.path, { readonly: true })
    try {
      return (db.prepare(`PRAGMA index_list("c_${table}")`).all() as { name: string; origin: string }[])
        .filter((index) => index.origin === 'c').map((index) => index.name).sort()
    } finally {
      db.close()
    }
  }

  override async commit(batch: CommitBatch): Promise<void> {
    if (batch.checkpoint === this.watched && batch.changes.length > 0) {
      this.seen.set(batch.next.commit.toString(), this.indexesOf('events_v1_b2'))
    }
    await super.commit(batch)
  }
}

t.test('a rebuild beside the serving build fills its tables without indexes, and has them all when it is switched to', async (t) => {
  const dir = tempDir(t)
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  const store = new IndexWatchingStore(join(dir, 'readmodels.sqlite'), 'events@v1#2')
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: [events] })
  await projections.start()
  const models = new ReadModels({ store, registry, projectors: [events], projections })
  t.teardown(async () => {
    await projections.stop()
    await log.close()
    await store.close()
  })

  for (let i = 0; i < 30; i++) await capture(log, 1, [event(i % 3 === 0 ? 'signed_up' : '$pageview', `user-${i % 4}`)])
  t.ok(await models.waitFor((await log.headPosition())!, ['events'], 10_000))
  const query = { where: { environment_id: 1, distinct_id: 'user-2' }, orderBy: [['timestamp', 'desc']] as [string, 'desc'][] }
  const before = await models.find('events', query)
  const served = store.indexesOf('events_v1_b1')
  t.equal(served.length, events.indexes!['events']!.length, `the serving build has its indexes (${served.join(', ')})`)

  await projections.rebuild('events')
  t.equal((await registry.read('events'))!.active.build, 2, 'the new build serves')
  t.ok(store.seen.size > 0, 'the new build committed documents')
  t.same([...store.seen.values()], [...store.seen.values()].map(() => []), 'no index of the new build existed while it was filled')
  t.same(store.indexesOf('events_v1_b2'), served.map((name) => name.replace('_v1_b1_', '_v1_b2_')), 'the new build has every index when it serves')
  t.same(await models.find('events', query), before, 'and answers as the old build did')
  t.equal(before.length, 7)
})
