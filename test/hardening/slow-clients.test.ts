import t from 'tap'
import { connect } from 'node:net'
import { askHealth } from '../support/raw-health.js'
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

t.test('a client that trickles its headers is answered 408 and cut off once the headers timeout passes, long before the request timeout', async (t) => {
  const w = await world(t)
  const app = await buildApp({ log: w.log, store: w.store, models: w.models, projections: w.projections, roles: ['api', 'ingest'], requestTimeoutMs: 20_000, headersTimeoutMs: 300 })
  t.teardown(() => app.close())
  const { port } = new URL(await app.listen({ host: '127.0.0.1', port: 0 }))
  const socket = connect(Number(port), '127.0.0.1')
  const started = Date.now()
  let answer = ''
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.on('error', () => undefined)
  socket.on('data', (chunk) => { answer += chunk.toString() })
  socket.write('GET /_health HTTP/1.1\r\nHost: x\r\nX-Slow: ')
  const trickle = setInterval(() => { if (!socket.destroyed) socket.write('a') }, 50)
  await closed
  clearInterval(trickle)
  const elapsed = Date.now() - started
  t.match(answer, /^HTTP\/1\.1 408/, 'the server says the request took too long')
  t.ok(elapsed < 3000, `the connection was closed after ${elapsed} ms, though a byte of header came every 50 ms`)
  t.equal((await app.inject({ method: 'GET', url: '/_health' })).statusCode, 200, 'and it goes on serving')
})

const ask = askHealth

t.test('connections beyond the cap are refused while the cap is reached, and served again once one closes', async (t) => {
  const w = await world(t)
  const app = await buildApp({ log: w.log, store: w.store, models: w.models, projections: w.projections, roles: ['api', 'ingest'], maxConnections: 3 })
  t.teardown(() => app.close())
  const port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port)
  const held = []
  for (let i = 0; i < 3; i++) held.push(await ask(port))
  t.same(held.map((h) => /^HTTP\/1\.1 200/.test(h.answer)), [true, true, true], 'three kept-alive connections are served')
  const started = Date.now()
  const refused = await ask(port)
  t.equal(refused.answer, '', 'a fourth connection is closed without an answer')
  t.ok(refused.socket.destroyed)
  t.ok(Date.now() - started < 2000, 'at once')
  held[0]!.socket.destroy()
  let again = await ask(port)
  for (let i = 0; i < 20 && again.answer === ''; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    again = await ask(port)
  }
  t.match(again.answer, /^HTTP\/1\.1 200/, 'once one closes, a new connection is served')
  for (const h of [...held, again]) h.socket.destroy()
})
