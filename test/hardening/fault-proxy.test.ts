import t, { type Test } from 'tap'
import { connect, createServer, type Socket } from 'node:net'
import { faultProxy, firstServer } from '../support/fault-proxy.js'

/** A loopback TCP server that sends back every byte it receives. */
const echoServer = async (t: Test) => {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    socket.pipe(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { for (const socket of sockets) socket.destroy(); server.close(() => resolve()) }))
  return { host: '127.0.0.1', port: (server.address() as { port: number }).port }
}

const proxied = async (t: Test) => {
  const proxy = await faultProxy(await echoServer(t))
  t.teardown(() => proxy.close())
  return proxy
}

/** A client connection that collects what comes back. */
const client = async (t: Test, port: number) => {
  const socket = connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => { socket.once('connect', resolve); socket.once('error', reject) })
  t.teardown(() => socket.destroy())
  let received = ''
  socket.on('data', (chunk: Buffer) => { received += chunk.toString() })
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  socket.on('error', () => undefined)
  return {
    socket, closed,
    received: () => received,
    /** Resolves once `text` has come back, with the milliseconds it took; rejects after `withinMs`. */
    roundTrip: (text: string, withinMs = 2000) => new Promise<number>((resolve, reject) => {
      const start = Date.now()
      const before = received.length
      const timer = setTimeout(() => { clearInterval(poll); reject(new Error(`no echo of ${text} within ${withinMs} ms`)) }, withinMs)
      const poll = setInterval(() => {
        if (received.slice(before).includes(text)) { clearInterval(poll); clearTimeout(timer); resolve(Date.now() - start) }
      }, 2)
      socket.write(text)
    }),
  }
}

const connectError = (port: number) => new Promise<string>((resolve) => {
  const socket = connect(port, '127.0.0.1')
  socket.once('connect', () => { socket.destroy(); resolve('connected') })
  socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('bytes pass both ways through the proxy untouched', async (t) => {
  const proxy = await proxied(t)
  const c = await client(t, proxy.port)
  await c.roundTrip('hello')
  await c.roundTrip('x'.repeat(200_000))
  t.equal(c.received().length, 200_005)
  t.equal(proxy.openConnections(), 1)
})

t.test('a cut resets open connections and refuses new ones until restored', async (t) => {
  const proxy = await proxied(t)
  const c = await client(t, proxy.port)
  await c.roundTrip('before')
  await proxy.cut()
  await c.closed
  t.pass('the open connection was closed')
  t.equal(proxy.openConnections(), 0)
  t.equal(await connectError(proxy.port), 'ECONNREFUSED', 'a new connection is refused')
  await proxy.restore()
  const again = await client(t, proxy.port)
  await again.roundTrip('after')
  t.pass('a new connection works after the restore, on the same port')
})

t.test('a stall holds bytes on an open connection and delivers them when restored', async (t) => {
  const proxy = await proxied(t)
  const c = await client(t, proxy.port)
  await c.roundTrip('warm')
  proxy.stall()
  c.socket.write('held')
  await sleep(300)
  t.equal(c.received(), 'warm', 'nothing came back while stalled')
  t.equal(c.socket.destroyed, false, 'the connection stays open')
  const late = await client(t, proxy.port)
  late.socket.write('new')
  await sleep(100)
  t.equal(late.received(), '', 'a connection made during the stall is held too')
  await proxy.restore()
  await sleep(100)
  t.equal(c.received(), 'warmheld', 'the held bytes arrive once restored')
  t.equal(late.received(), 'new')
})

t.test('a delay adds latency in each direction, keeps the order of bytes, and goes with a restore', async (t) => {
  const proxy = await proxied(t)
  const c = await client(t, proxy.port)
  t.ok(await c.roundTrip('fast') < 150, 'fast before')
  proxy.delay(150)
  t.ok(await c.roundTrip('slow') >= 290, 'a round trip takes the delay twice')
  for (const part of ['a', 'b', 'c', 'd']) c.socket.write(part)
  await sleep(400)
  t.match(c.received(), /abcd$/, 'in order')
  await proxy.restore()
  t.ok(await c.roundTrip('fast again') < 150, 'fast after the restore')
})

t.test('the first server of a connection string is found for the proxy to forward to', async (t) => {
  t.same(firstServer('esdb://node1:2113,node2:2113?tls=false'), { host: 'node1', port: 2113 })
  t.same(firstServer('mongodb://user:p%40ss@localhost/?directConnection=true'), { host: 'localhost', port: 27017 })
  t.same(firstServer('mongodb://[::1]:27018/'), { host: '::1', port: 27018 })
})
