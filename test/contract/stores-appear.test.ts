import t, { type Test } from 'tap'
import { faultProxy, firstServer, throughProxy } from '../support/fault-proxy.js'
import { pause, serveWith, timedGet } from '../support/stores-down.js'

// Needs real servers: HEDGELOG_TEST_EVENTSTORE_URL (a single node, e.g. esdb://localhost:2113?tls=false)
// and HEDGELOG_TEST_MONGO_URL (a replica set member, e.g. mongodb://localhost:27017/?replicaSet=rs0).
// The service is pointed at a fault proxy that starts cut; a few seconds later the proxy is
// restored, and the service must become healthy by itself.

const esdbUrl = process.env['HEDGELOG_TEST_EVENTSTORE_URL']
const mongoUrl = process.env['HEDGELOG_TEST_MONGO_URL']

const becomesHealthy = async (t: Test, variable: string, url: string) => {
  // The proxy starts cut, as a server not there yet; restoring it is the server appearing.
  const proxy = await faultProxy(firstServer(url))
  t.teardown(() => proxy.close())
  await proxy.cut()
  const server = await serveWith(t, { [variable]: throughProxy(url, proxy), HEDGELOG_MONGO_DATABASE: `hedgelog_appear_${process.pid}` })
  await pause(2000)
  t.equal((await timedGet(`${server.address}/_health`)).status, 503, 'unhealthy while the server is away')
  await proxy.restore()
  const deadline = Date.now() + 60_000
  let health = await timedGet(`${server.address}/_health`)
  while (health.status !== 200 && Date.now() < deadline) {
    await pause(500)
    health = await timedGet(`${server.address}/_health`)
  }
  t.equal(health.status, 200, 'healthy once the server answers, without a restart')
  t.equal(server.child.exitCode, null)
}

if (esdbUrl) {
  t.test('given EventStoreDB appears after the start, serve becomes healthy by itself', (t) => becomesHealthy(t, 'HEDGELOG_EVENTSTORE_URL', esdbUrl))
} else {
  t.comment('stores appearing after the start: skipped EventStoreDB (set HEDGELOG_TEST_EVENTSTORE_URL to run it)')
}
if (mongoUrl) {
  t.test('given MongoDB appears after the start, serve becomes healthy by itself', (t) => becomesHealthy(t, 'HEDGELOG_MONGO_URL', mongoUrl))
} else {
  t.comment('stores appearing after the start: skipped MongoDB (set HEDGELOG_TEST_MONGO_URL to run it)')
}
