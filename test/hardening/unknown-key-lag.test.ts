import t from 'tap'
import { initialize, issueApiKey } from '../../src/accounts/commands.js'
import { buildApp } from '../../src/app.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import type { ReadStore } from '../../src/readstore/port.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { allProjectors } from '../../src/modules.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { context } from '../support/world.js'

/** The real store, whose commits wait while `gate.held`: every projection stops where it is. */
const holdable = (store: SqliteReadStore, gate: { held: boolean; release: () => void; opened: Promise<void> }): ReadStore =>
  Object.assign(Object.create(store) as ReadStore, {
    commit: async (batch: Parameters<ReadStore['commit']>[0]) => {
      if (gate.held) await gate.opened
      return store.commit(batch)
    },
  })

const timed = async <T>(work: Promise<T>): Promise<{ value: T; ms: number }> => {
  const started = performance.now()
  const value = await work
  return { value, ms: performance.now() - started }
}

t.test('unknown personal keys are refused within the bound while projections are held back, and other requests are answered meanwhile', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const real = new SqliteReadStore({ path: ':memory:' })
  let release = () => {}
  const gate = { held: false, release: () => release(), opened: new Promise<void>((resolve) => { release = resolve }) }
  const store = holdable(real, gate)
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: allProjectors })
  await projections.start()
  const models = new ReadModels({ store, registry, projectors: allProjectors, projections })
  const app = await buildApp({ log, store, models, projections, roles: ['api', 'ingest'] })
  t.teardown(async () => { gate.held = false; gate.release(); await app.close(); await projections.stop(); await log.close(); await real.close() })

  const installation = await initialize(log, context())
  const known = await issueApiKey(log, { userUuid: installation.user_uuid, scopes: ['*'], label: 'known' }, context())
  t.ok(await models.waitFor((await log.headPosition())!, ['personal_api_keys', 'users'], 5000))
  const me = (key: string) => app.inject({ method: 'GET', url: '/api/users/@me/', headers: { authorization: `Bearer ${key}` } })
  t.equal((await me(known.value)).statusCode, 200)

  gate.held = true
  const lagging = await issueApiKey(log, { userUuid: installation.user_uuid, scopes: ['*'], label: 'not yet projected' }, context())
  t.notOk(await models.waitFor((await log.headPosition())!, ['personal_api_keys'], 200), 'the key projections are behind the head')

  const unknown = Array.from({ length: 20 }, (_, i) => timed(me(`phx_unknown_${i}_${'x'.repeat(30)}`)))
  const health = timed(app.inject({ method: 'GET', url: '/_health' }))
  const knownKey = timed(me(known.value))
  const cheap = await Promise.all([health, knownKey])
  const refused = await Promise.all(unknown)
  const invalid = { type: 'authentication_error', code: 'authentication_failed', detail: 'Personal API key found in request Authorization header is invalid.', attr: null }
  t.same(refused.map(({ value }) => [value.statusCode, value.json()]), refused.map(() => [401, invalid]), 'every unknown key gets PostHog\'s 401')
  const slowest = Math.max(...refused.map((r) => r.ms))
  t.ok(slowest < 1500, `every unknown key was refused within ${Math.round(slowest)} ms though the projections never caught up`)
  t.equal(cheap[0].value.statusCode, 200, 'health is answered meanwhile')
  t.equal(cheap[1].value.statusCode, 200, 'a known key is answered meanwhile')
  const fastest = Math.min(...refused.map((r) => r.ms))
  t.ok(Math.max(cheap[0].ms, cheap[1].ms) < fastest, `the other requests took ${Math.round(cheap[0].ms)} and ${Math.round(cheap[1].ms)} ms, before any unknown key was refused (${Math.round(fastest)} ms)`)
  t.ok(await projections.status().then((s) => s['personal_api_keys']?.lag ?? 0) > 0, 'and the projections were still held back')

  gate.held = false
  gate.release()
  t.ok(await models.waitFor((await log.headPosition())!, ['personal_api_keys', 'users'], 5000))
  t.equal((await me(lagging.value)).statusCode, 200, 'the key issued meanwhile works once projected')
})
