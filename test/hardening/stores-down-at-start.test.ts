import t, { type Test } from 'tap'
import { closedPort } from '../support/closed-port.js'
import { fakeMongo } from '../support/fake-mongo.js'
import { exited } from '../support/cli.js'
import { silentServer } from '../support/silent-server.js'
import { hasStackTrace, pause, serveWith, timedGet } from '../support/stores-down.js'

const capture = { api_key: 'phc_unknown', event: 'signed up', distinct_id: 'u1' }

/** The behaviour every store-backed route and health show while `store` has not answered since the start. */
const showsWaitingFor = async (t: Test, env: Record<string, string>, store: RegExp, waitingLine: string) => {
  const server = await serveWith(t, env)
  await pause(3000)
  t.equal(server.child.exitCode, null, 'the process is still running after 3 s')
  t.equal(server.child.signalCode, null)
  t.notOk(hasStackTrace(server.output()), 'no stack trace was printed')
  t.equal(server.output().split('\n').filter((line) => line.includes(waitingLine)).length, 1, 'one line says what it waits for')

  const health = await timedGet(`${server.address}/_health`)
  t.equal(health.status, 503)
  t.ok(health.ms < 1000, `health answered in ${Math.round(health.ms)} ms`)
  t.match(health.body, { status: 'error', problems: [store] }, 'health names the store it waits for')

  const captured = await fetch(`${server.address}/capture/`, { method: 'POST', body: JSON.stringify(capture), signal: AbortSignal.timeout(5000) })
  t.equal(captured.status, 503, 'capture answers 503')
  t.ok(Number(captured.headers.get('retry-after')) > 0, 'with Retry-After')
  t.same(await captured.json(), { status: 503, code: 'service_unavailable', error: 'service unavailable: transient error, please retry' }, "in capture's shape")

  const listed = await timedGet(`${server.address}/api/projects/1/dashboards/`)
  t.equal(listed.status, 503, 'a management read answers 503')
  t.ok(Number(listed.retryAfter) > 0, 'with Retry-After')
  t.same(listed.body, { type: 'server_error', code: 'service_unavailable', detail: 'Storage is unavailable at the moment. Please retry shortly.', attr: null })
  t.notOk(hasStackTrace(server.output()), 'still no stack trace after the requests')
}

t.test('given nothing listens at the EventStoreDB URL, serve stays up and answers 503 naming the event log', async (t) => {
  await showsWaitingFor(t, { HEDGELOG_EVENTSTORE_URL: `esdb://127.0.0.1:${await closedPort()}?tls=false` }, /EventStoreDB/, 'waiting for the event log (EventStoreDB')
})

t.test('given nothing listens at the MongoDB URL, serve stays up and answers 503 naming the read store', async (t) => {
  await showsWaitingFor(t, { HEDGELOG_MONGO_URL: `mongodb://127.0.0.1:${await closedPort()}/?directConnection=true` }, /MongoDB/, 'waiting for the read store (MongoDB')
})

t.test('given an EventStoreDB URL whose server accepts connections and never answers, health answers 503 within 1 s', async (t) => {
  await showsWaitingFor(t, { HEDGELOG_EVENTSTORE_URL: `esdb://127.0.0.1:${await silentServer(t)}?tls=false` }, /EventStoreDB/, 'waiting for the event log (EventStoreDB')
})

t.test('given a MongoDB URL whose server accepts connections and never answers, health answers 503 within 1 s', async (t) => {
  await showsWaitingFor(t, { HEDGELOG_MONGO_URL: `mongodb://127.0.0.1:${await silentServer(t)}/?directConnection=true` }, /MongoDB/, 'waiting for the read store (MongoDB')
})

t.test('given MongoDB appears after the start, serve reaches it without a restart (a standalone one is then refused in one line)', async (t) => {
  const port = await closedPort()
  const server = await serveWith(t, { HEDGELOG_MONGO_URL: `mongodb://127.0.0.1:${port}/?directConnection=true` })
  await pause(1500)
  t.equal(server.child.exitCode, null, 'still waiting')
  const standalone = await fakeMongo({}, port)
  t.teardown(() => standalone.close())
  const code = await Promise.race([exited(server.child), pause(20_000).then(() => 'still running')])
  t.equal(code, 1, 'the process stops once it reaches the server and finds it cannot hold read models')
  t.match(server.output(), /\nhedgelog: MongoDB at mongodb:\/\/127\.0\.0\.1:\d+\/\S* is not a replica set member [^\n]*\n$/, 'saying why in one line')
  t.notOk(hasStackTrace(server.output()), 'without a stack trace')
})
