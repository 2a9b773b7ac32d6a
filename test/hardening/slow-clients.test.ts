import t from 'tap'
import { connect } from 'node:net'
import { buildApp, MAX_CONNECTIONS } from '../../src/app.js'
import { world } from '../support/world.js'

t.test('a client that stops sending its body is answered 408 and cut off once the request timeout passes', async (t) => {
  const w = await world(t)
  const app = await buildApp({ log: w.log, store: w.store, models: w.models, projections: w.projections, roles: ['api', 'ingest'], requestTimeoutMs: 300 })
  t.teardown(() => app.close())
  t.equal(app.server.maxConnections, MAX_CONNECTIONS)
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = new URL(address)
  const socket = connect(Number(port), '127.0.0.1')
  const started = Date.now()
  let answer = ''
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.on('data', (chunk) => { answer += chunk.toString() })
  socket.write('POST /batch/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"api_key":')
  await closed
  const elapsed = Date.now() - started
  t.match(answer, /^HTTP\/1\.1 408/, 'the server says the request took too long')
  t.ok(elapsed < 5000, `the connection was closed after ${elapsed} ms`)
  const health = await app.inject({ method: 'GET', url: '/_health' })
  t.equal(health.statusCode, 200, 'and it goes on serving', { body: health.body })
})
