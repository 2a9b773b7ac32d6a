import t from 'tap'
import { initialize, issueApiKey } from '../../src/accounts/commands.js'
import { buildApp } from '../../src/app.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { allProjectors } from '../../src/modules.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { client } from '../support/client.js'
import { collect } from '../support/collect.js'
import { context } from '../support/world.js'

t.test('a create that landed but cannot be read back answers 503 with Retry-After, and its keyed retry writes nothing more', async (t) => {
  // Every read model is built except the dashboards', as when its projection is stuck behind a full disk.
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: allProjectors.filter((p) => p.name !== 'dashboards') })
  await projections.start()
  const models = new ReadModels({ store, registry, projectors: allProjectors, projections })
  const app = await buildApp({ log, store, models, projections, roles: ['api'] })
  t.teardown(async () => {
    await app.close()
    await projections.stop()
    await log.close()
    await store.close()
  })
  const installation = await initialize(log, context())
  const key = await issueApiKey(log, { userUuid: installation.user_uuid, scopes: ['*'], label: 'test' }, context())
  const keyed = client(app, { authorization: `Bearer ${key.value}`, 'idempotency-key': 'while-behind' })
  const url = `/api/environments/${installation.environment_id}/dashboards/`

  const answer = await keyed.post(url, { name: 'landed' })
  t.equal(answer.status, 503)
  t.match(answer.body, { type: 'server_error', code: 'service_unavailable' })
  t.ok(Number(answer.headers['retry-after']) > 0, 'with Retry-After')
  const retried = await keyed.post(url, { name: 'landed' })
  t.equal(retried.status, 503)
  const created = (await collect(log.readAll())).filter((event) => event.type === 'DashboardCreated')
  t.equal(created.length, 1, 'one dashboard in the log, not two')
})
