import t from 'tap'
import { buildApp } from '../../src/app.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { newEventId } from '../../src/kernel/ids.js'
import type { ReadStore } from '../../src/readstore/port.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import type { Projector } from '../../src/readstore/projector.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../projections/registry.js'

const noted: Projector = { name: 'noted', version: 1, collections: ['notes'], handles: ['Noted'], apply(view, e) { view.put('notes', e.id, { id: e.id }) } }

/** The real store, whose commits for one checkpoint fail as a busy database does while `busy.on`. */
const busyFor = (store: SqliteReadStore, checkpoint: string, busy: { on: boolean }): ReadStore =>
  Object.assign(Object.create(store) as ReadStore, {
    commit: async (batch: Parameters<ReadStore['commit']>[0]) => {
      if (busy.on && batch.checkpoint === checkpoint) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })
      return store.commit(batch)
    },
  })

t.test('a projection behind the head that stops advancing makes health answer 503, and it recovers by itself', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const real = new SqliteReadStore({ path: ':memory:' })
  const busy = { on: true }
  const store = busyFor(real, 'noted@v1#1', busy)
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: [noted], stallAfterMs: 200 })
  await projections.start()
  const models = new ReadModels({ store, registry, projectors: [noted], projections })
  const app = await buildApp({ log, store, models, projections, roles: ['api'] })
  t.teardown(async () => { await app.close(); await projections.stop(); await log.close(); await real.close() })

  const written = await log.append('notes', [{ id: newEventId(), type: 'Noted', data: {} }])
  await new Promise((resolve) => setTimeout(resolve, 400))
  const stalled = await app.inject({ method: 'GET', url: '/_health' })
  t.equal(stalled.statusCode, 503)
  t.match(stalled.json(), {
    status: 'error',
    problems: ['projection noted cannot advance: Error: database is locked', /^projection noted is not advancing \(\d+ behind\)$/],
    projections: { noted: { stalled: true, quarantined: 0, error: 'Error: database is locked' } },
  }, 'health names the error the projection keeps retrying after, and that it does not advance')

  busy.on = false
  t.ok(await models.waitFor(written.position, ['notes'], 10_000), 'the busy store recovered and nothing was skipped')
  t.equal((await app.inject({ method: 'GET', url: '/_health' })).statusCode, 200)
  t.equal(await real.count('quarantined_events'), 0, 'a busy store never quarantines anything')
})
