import t from 'tap'
import { world } from '../support/world.js'

t.test('a preflight from another origin is allowed with credentials and the asked headers', async (t) => {
  const { app } = await world(t)
  for (const url of ['/e/', '/capture/', '/batch/', '/i/v0/e/']) {
    const response = await app.inject({
      method: 'OPTIONS', url,
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-requested-with' },
    })
    t.equal(response.statusCode, 200, url)
    t.equal(response.headers['access-control-allow-origin'], 'https://shop.example')
    t.equal(response.headers['access-control-allow-credentials'], 'true')
    t.match(response.headers['access-control-allow-methods'], /POST/)
    t.equal(response.headers['access-control-allow-headers'], 'content-type, x-requested-with')
    t.match(response.headers['vary'], /Origin/)
  }
})

t.test('answers and refusals carry the caller origin, so the page can read them', async (t) => {
  const { app, installation } = await world(t)
  const origin = { origin: 'https://shop.example' }
  const ok = await app.inject({ method: 'POST', url: '/e/', headers: origin, payload: [{ event: 'e', properties: { token: installation.project_api_key, distinct_id: 'u' } }] })
  t.equal(ok.statusCode, 200)
  t.equal(ok.headers['access-control-allow-origin'], 'https://shop.example')
  const refused = await app.inject({ method: 'POST', url: '/e/', headers: origin, payload: [{ event: 'e' }] })
  t.equal(refused.statusCode, 401)
  t.equal(refused.headers['access-control-allow-origin'], 'https://shop.example')
  t.equal(refused.headers['access-control-allow-credentials'], 'true')
})

t.test('the management API is untouched: its own routes, no capture CORS', async (t) => {
  const { app, key, bearer } = await world(t)
  const response = await app.inject({ method: 'GET', url: '/api/users/@me/', headers: { ...bearer(key.value), origin: 'https://shop.example' } })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['access-control-allow-origin'], undefined)
})
