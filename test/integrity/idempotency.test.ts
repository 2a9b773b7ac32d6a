import t from 'tap'
import { collect } from '../support/collect.js'
import { integrityWorld } from '../support/integrity.js'

t.test('a create retried with the same Idempotency-Key answers the first result and creates one dashboard', async (t) => {
  const w = await integrityWorld(t)
  const keyed = w.keyed('create-dashboard-1')
  const first = await keyed.post(w.dashboards, { name: 'once', use_template: 'DEFAULT_APP' })
  const second = await keyed.post(w.dashboards, { name: 'once', use_template: 'DEFAULT_APP' })
  t.equal(first.status, 201)
  t.equal(second.status, 201)
  t.equal(second.body.id, first.body.id, 'the same dashboard')
  t.same(second.body.tiles.map((tile: { id: number }) => tile.id), first.body.tiles.map((tile: { id: number }) => tile.id), 'with the same tiles')
  const list = await w.api.get(w.dashboards)
  t.equal(list.body.results.filter((d: { name: string }) => d.name === 'once').length, 1, 'one dashboard in the list')
  const created = (await collect(w.log.readAll())).filter((event) => event.type === 'DashboardCreated')
  t.equal(created.length, 1, 'one DashboardCreated in the log')
})

t.test('concurrent requests with one Idempotency-Key create one dashboard', async (t) => {
  const w = await integrityWorld(t)
  const keyed = w.keyed('burst')
  const answers = await Promise.all(Array.from({ length: 6 }, () => keyed.post(w.dashboards, { name: 'burst' })))
  t.same([...new Set(answers.map((a) => a.status))], [201])
  t.equal(new Set(answers.map((a) => a.body.id)).size, 1, 'every answer names the same dashboard')
  const created = (await collect(w.log.readAll())).filter((event) => event.type === 'DashboardCreated')
  t.equal(created.length, 1)
})

t.test('different keys, or none, are different commands', async (t) => {
  const w = await integrityWorld(t)
  const a = await w.keyed('a').post(w.dashboards, { name: 'twice' })
  const b = await w.keyed('b').post(w.dashboards, { name: 'twice' })
  const plain = await w.api.post(w.dashboards, { name: 'twice' })
  t.equal(new Set([a.body.id, b.body.id, plain.body.id]).size, 3)
})

t.test('a PATCH that adds a tile, retried with its key, adds it once', async (t) => {
  const w = await integrityWorld(t)
  const { body } = await w.api.post(w.dashboards, { name: 'tiles' })
  const keyed = w.keyed('add-tile')
  const url = `${w.dashboards}${body.id}/`
  const first = await keyed.patch(url, { tiles: [{ text: { body: 'hello' } }] })
  const second = await keyed.patch(url, { tiles: [{ text: { body: 'hello' } }] })
  t.equal(first.status, 200)
  t.equal(second.status, 200)
  t.equal((await w.api.get(url)).body.tiles.length, 1, 'one tile')
  t.equal(second.body.tiles[0].id, first.body.tiles[0].id)
})

t.test('a flag create retried with its key answers the same flag, not a key conflict', async (t) => {
  const w = await integrityWorld(t)
  const keyed = w.keyed('flag')
  const first = await keyed.post(w.flags, { key: 'retried', filters: { groups: [{ rollout_percentage: 50 }] } })
  const second = await keyed.post(w.flags, { key: 'retried', filters: { groups: [{ rollout_percentage: 50 }] } })
  t.equal(first.status, 201)
  t.equal(second.status, 201)
  t.equal(second.body.id, first.body.id)
  t.equal((await w.api.post(w.flags, { key: 'retried' })).status, 400, 'the key stays taken for anyone else')
})

t.test('the same key on another route is another command', async (t) => {
  const w = await integrityWorld(t)
  const keyed = w.keyed('shared')
  const dashboard = await keyed.post(w.dashboards, { name: 'd' })
  const flag = await keyed.post(w.flags, { key: 'f' })
  t.equal(dashboard.status, 201)
  t.equal(flag.status, 201)
})

t.test('a malformed Idempotency-Key is refused in PostHog\'s shape before anything is written', async (t) => {
  const w = await integrityWorld(t)
  const refused = await w.keyed('x'.repeat(256)).post(w.dashboards, { name: 'no' })
  t.equal(refused.status, 400)
  t.match(refused.body, { type: 'validation_error', attr: 'Idempotency-Key' })
  t.equal((await collect(w.log.readAll())).filter((event) => event.type === 'DashboardCreated').length, 0)
})
