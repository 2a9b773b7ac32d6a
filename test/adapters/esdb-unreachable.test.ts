import t, { type Test } from 'tap'
import { Unavailable } from '../../src/eventlog/errors.js'
import { EsdbEventLog } from '../../src/eventlog/esdb.js'
import { buildApp } from '../../src/app.js'
import { newEventId } from '../../src/kernel/ids.js'
import { client } from '../support/client.js'
import { closedPort } from '../support/closed-port.js'
import { collect } from '../support/collect.js'
import { world } from '../support/world.js'

// With no EventStoreDB server on this machine, a closed port is the one failure that can be
// produced here: the client's feature probe, reads and subscriptions all fail to connect.

const unreachableLog = async (t: Test): Promise<EsdbEventLog> => {
  const log = EsdbEventLog.connect(`esdb://127.0.0.1:${await closedPort()}?tls=false`)
  t.teardown(() => log.close())
  return log
}

t.test('given EventStoreDB is unreachable, when appending, then the append fails as Unavailable', async (t) => {
  const log = await unreachableLog(t)
  await t.rejects(log.append('thing-1', [{ id: newEventId(), type: 'ThingHappened', data: {} }], { expectedRevision: 'no_stream' }), Unavailable)
})

t.test('given EventStoreDB is unreachable, when reading, deleting or asking for the head, then each fails as Unavailable', async (t) => {
  const log = await unreachableLog(t)
  await t.rejects(collect(log.readStream('thing-1')), Unavailable, 'readStream')
  await t.rejects(collect(log.readAll({ maxCount: 10 })), Unavailable, 'readAll')
  await t.rejects(log.headPosition(), Unavailable, 'headPosition')
  await t.rejects(log.deleteStream('thing-1', { expectedRevision: 0n }), Unavailable, 'deleteStream')
})

t.test('given EventStoreDB is unreachable, when subscribing, then iteration fails as Unavailable', async (t) => {
  const log = await unreachableLog(t)
  const subscription = log.subscribeToAll({ filter: { eventTypes: ['ThingHappened'] } })
  await t.rejects(collect(subscription), Unavailable)
  await subscription.unsubscribe()
})

t.test('given the event log becomes unreachable, when a client captures or creates, then it gets a 503 in PostHog\'s shape', async (t) => {
  const running = await world(t)
  const log = await unreachableLog(t)
  const app = await buildApp({ log, store: running.store, models: running.models, roles: ['api', 'ingest'] })
  t.teardown(() => app.close())
  const http = client(app, running.bearer(running.key.value))
  const capture = await http.post('/capture/', { api_key: running.installation.project_api_key, event: 'signed up', distinct_id: 'u1' })
  t.equal(capture.status, 503, 'capture answers 503, after its own retries')
  t.same(capture.body, { status: 503, code: 'service_unavailable', error: 'service unavailable: transient error, please retry' })
  const created = await http.post(`/api/projects/${running.installation.project_id}/dashboards/`, { name: 'Weekly' })
  t.equal(created.status, 503, 'a management write answers 503')
  t.same(created.body, { type: 'server_error', code: 'service_unavailable', detail: 'Storage is unavailable at the moment. Please retry shortly.', attr: null })
})

t.test('given a server that accepts connections and never answers, an append fails as Unavailable within its deadline and close() does not hang', async (t) => {
  const { createServer } = await import('node:net')
  const sockets = new Set<import('node:net').Socket>()
  const silent = createServer((socket) => { sockets.add(socket); socket.on('error', () => undefined) })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { for (const socket of sockets) socket.destroy(); silent.close(() => resolve()) }))
  const { port } = silent.address() as { port: number }
  const log = EsdbEventLog.connect(`esdb://127.0.0.1:${port}?tls=false`, { appendDeadlineMs: 300 })
  const started = performance.now()
  await t.rejects(log.append('thing-1', [{ id: newEventId(), type: 'ThingHappened', data: {} }], { expectedRevision: 'no_stream' }), Unavailable)
  t.ok(performance.now() - started < 5000, `the append gave up after ${Math.round(performance.now() - started)} ms`)
  const closing = performance.now()
  await log.close()
  t.ok(performance.now() - closing < 5000, 'close() returned')
})
