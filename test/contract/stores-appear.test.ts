import t, { type Test } from 'tap'
import { closedPort } from '../support/closed-port.js'
import { forwardLater } from '../support/late-server.js'
import { pause, serveWith, timedGet } from '../support/stores-down.js'

// Needs real servers: HEDGELOG_TEST_EVENTSTORE_URL (a single node, e.g. esdb://localhost:2113?tls=false)
// and HEDGELOG_TEST_MONGO_URL (a replica set member, e.g. mongodb://localhost:27017/?replicaSet=rs0).
// The service is pointed at a loopback port where nothing listens; a few seconds later that port
// starts forwarding to the real server, and the service must become healthy by itself.

const esdbUrl = process.env['HEDGELOG_TEST_EVENTSTORE_URL']
const mongoUrl = process.env['HEDGELOG_TEST_MONGO_URL']

/** `url` with its host and port replaced by loopback `port`, and what they were. */
const redirected = (url: string, port: number, extra: Record<string, string>): { url: string; host: string; port: number } => {
  const parsed = new URL(url.replace(/^(esdb|mongodb):/, 'http:'))
  const target = { host: parsed.hostname, port: Number(parsed.port) }
  parsed.host = `127.0.0.1:${port}`
  for (const [key, value] of Object.entries(extra)) parsed.searchParams.set(key, value)
  return { url: parsed.toString().replace(/^http:/, url.slice(0, url.indexOf(':') + 1)), ...target }
}

const becomesHealthy = async (t: Test, variable: string, url: string, extra: Record<string, string>) => {
  const port = await closedPort()
  const late = redirected(url, port, extra)
  const server = await serveWith(t, { [variable]: late.url, HEDGELOG_MONGO_DATABASE: `hedgelog_appear_${process.pid}` })
  await pause(2000)
  t.equal((await timedGet(`${server.address}/_health`)).status, 503, 'unhealthy while the server is away')
  await forwardLater(t, port, late.host, late.port)
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
  t.test('given EventStoreDB appears after the start, serve becomes healthy by itself', (t) => becomesHealthy(t, 'HEDGELOG_EVENTSTORE_URL', esdbUrl, {}))
} else {
  t.comment('stores appearing after the start: skipped EventStoreDB (set HEDGELOG_TEST_EVENTSTORE_URL to run it)')
}
if (mongoUrl) {
  t.test('given MongoDB appears after the start, serve becomes healthy by itself', (t) => becomesHealthy(t, 'HEDGELOG_MONGO_URL', mongoUrl, { directConnection: 'true' }))
} else {
  t.comment('stores appearing after the start: skipped MongoDB (set HEDGELOG_TEST_MONGO_URL to run it)')
}
