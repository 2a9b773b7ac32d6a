import t from 'tap'
import { world } from '../support/world.js'
import { client } from '../support/client.js'

t.test('50 concurrent clients PATCHing one dashboard lose no update', async (t) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`
  const { body } = await api.post(base, { name: 'contended' })
  const url = `${base}${body.id}/`
  const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 5 === 0
    ? api.patch(url, { description: `description ${i}`, tiles: [{ text: { body: `card ${i}` } }] })
    : api.patch(url, { tiles: [{ text: { body: `card ${i}` } }] }))))
  t.same(responses.map((r) => r.status), Array(50).fill(200), 'every PATCH succeeded')
  const final = await api.get(url)
  const bodies = final.body.tiles.map((tile: { text: { body: string } }) => tile.text.body).sort()
  t.same(bodies, Array.from({ length: 50 }, (_, i) => `card ${i}`).sort(), 'every tile that was added is there, once')
  const activity = await api.get(`${url}activity/?limit=1000`)
  t.equal(activity.body.count, 51, 'one log entry per PATCH, plus the creation')
})
