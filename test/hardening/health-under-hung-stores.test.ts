import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { EsdbEventLog } from '../../src/eventlog/esdb.js'
import { MongoReadStore } from '../../src/readstore/mongo.js'
import { silentServer } from '../support/silent-server.js'
import { world } from '../support/world.js'

/** `/_health` of `app`, asserted to answer 503 within `ms`. */
const healthWithin = async (t: Test, app: FastifyInstance, ms: number) => {
  const started = performance.now()
  const health = await app.inject({ method: 'GET', url: '/_health' })
  const took = performance.now() - started
  t.equal(health.statusCode, 503)
  t.ok(took < ms, `answered in ${Math.round(took)} ms`)
  return health
}

// The stores answered once and then hang: health's own probes must bound the wait, since a hung
// server holds a driver's call far longer than a second.

t.test('given the event log hangs after the start, health answers 503 naming it within 1 s', async (t) => {
  const running = await world(t)
  const log = EsdbEventLog.connect(`esdb://127.0.0.1:${await silentServer(t)}?tls=false`)
  t.teardown(() => log.close())
  const app = await buildApp({ log, store: running.store, models: running.models, roles: ['api', 'ingest'], healthProbeTimeoutMs: 300 })
  t.teardown(() => app.close())
  const health = await healthWithin(t, app, 1000)
  t.match(health.json(), { status: 'error', eventLog: 'eventstoredb', problems: ['eventLog'] })
})

t.test('given the read store hangs after the start, health answers 503 naming it within 1 s, at the default probe time', async (t) => {
  const running = await world(t)
  const store = MongoReadStore.open(`mongodb://127.0.0.1:${await silentServer(t)}/?directConnection=true`, 'hedgelog', { serverSelectionMs: 30_000, connectMs: 30_000, socketMs: 0 })
  t.teardown(() => store.close())
  const app = await buildApp({ log: running.log, store, models: running.models, roles: ['api', 'ingest'] })
  t.teardown(() => app.close())
  const health = await healthWithin(t, app, 1000)
  t.match(health.json(), { status: 'error', readStore: 'mongodb', problems: ['readStore'] })
})
