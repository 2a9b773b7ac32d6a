import t from 'tap'
import { askHealth } from '../support/raw-health.js'
import { world } from '../support/world.js'

const ask = askHealth

const served = (answer: string): boolean => /^HTTP\/1\.1 200/.test(answer)

t.test('one address gets its cap of connections and no more; other addresses are still served', async (t) => {
  const w = await world(t, { app: { connectionsPerAddress: 3 } })
  const port = Number(new URL(await w.app.listen({ host: '127.0.0.1', port: 0 })).port)
  const held = []
  for (let i = 0; i < 3; i++) held.push(await ask(port, '127.0.0.2'))
  t.same(held.map((h) => served(h.answer)), [true, true, true], 'three kept-alive connections from 127.0.0.2 are served')
  const excess = await Promise.all([ask(port, '127.0.0.2'), ask(port, '127.0.0.2')])
  t.same(excess.map((e) => e.answer), ['', ''], 'more from the same address are closed without an answer')
  t.ok(excess.every((e) => e.socket.destroyed))
  const others = await Promise.all(['127.0.0.3', '127.0.0.4', '127.0.0.3'].map((from) => ask(port, from)))
  t.same(others.map((o) => served(o.answer)), [true, true, true], 'other addresses are served meanwhile')
  for (const other of others) other.socket.destroy()

  held[0]!.socket.destroy()
  let again = await ask(port, '127.0.0.2')
  for (let i = 0; i < 20 && again.answer === ''; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    again = await ask(port, '127.0.0.2')
  }
  t.ok(served(again.answer), 'once one closes, the address may open another')
  for (const h of [...held, again]) h.socket.destroy()
})

t.test('a trusted proxy carries many clients and is not held to the cap', async (t) => {
  const w = await world(t, { app: { connectionsPerAddress: 2, trustedProxies: ['127.0.0.5'] } })
  const port = Number(new URL(await w.app.listen({ host: '127.0.0.1', port: 0 })).port)
  const held = await Promise.all([0, 1, 2, 3].map(() => ask(port, '127.0.0.5')))
  t.same(held.map((h) => served(h.answer)), [true, true, true, true])
  for (const h of held) h.socket.destroy()
})
