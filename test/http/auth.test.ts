import t from 'tap'
import { revokeApiKey } from '../../src/accounts/commands.js'
import { context, world } from '../support/world.js'

t.test('a request without credentials gets PostHog\'s 401', async (t) => {
  const { app } = await world(t)
  const response = await app.inject({ method: 'GET', url: '/api/users/@me/' })
  t.equal(response.statusCode, 401)
  t.same(response.json(), { type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null })
})

t.test('an unknown key is refused, naming where it was found', async (t) => {
  const { app } = await world(t)
  const header = await app.inject({ method: 'GET', url: '/api/users/@me/', headers: { authorization: 'Bearer phx_invalid_key' } })
  t.equal(header.statusCode, 401)
  t.same(header.json(), { type: 'authentication_error', code: 'authentication_failed', detail: 'Personal API key found in request Authorization header is invalid.', attr: null })
  const query = await app.inject({ method: 'GET', url: '/api/users/@me/?personal_api_key=phx_nope' })
  t.equal(query.json().detail, 'Personal API key found in request query string is invalid.')
})

t.test('a valid key is accepted from the header (spaces tolerated) or the query string', async (t) => {
  const { app, key, installation } = await world(t)
  const spaced = await app.inject({ method: 'GET', url: '/api/users/@me/', headers: { authorization: `Bearer  ${key.value}  ` } })
  t.equal(spaced.statusCode, 200)
  t.equal(spaced.json().uuid, installation.user_uuid)
  t.same(spaced.json().projects, [{ id: installation.project_id, name: 'Default project' }])
  const query = await app.inject({ method: 'GET', url: `/api/users/@me?personal_api_key=${key.value}` })
  t.equal(query.statusCode, 200, 'the trailing slash is optional')
})

t.test('a key without the route\'s scope gets 403 naming the scope', async (t) => {
  const { app, issueKey, bearer } = await world(t)
  const key = await issueKey(['dashboard:read'])
  const response = await app.inject({ method: 'GET', url: '/api/users/@me/', headers: bearer(key.value) })
  t.equal(response.statusCode, 403)
  t.same(response.json(), { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'user:read'", attr: null })
})

t.test('write scope implies read scope', async (t) => {
  const { app, issueKey, bearer } = await world(t)
  const key = await issueKey(['user:write'])
  t.equal((await app.inject({ method: 'GET', url: '/api/users/@me/', headers: bearer(key.value) })).statusCode, 200)
})

t.test('a revoked key stops working once the revocation is projected', async (t) => {
  const { app, log, models, issueKey, bearer } = await world(t)
  const key = await issueKey(['user:read'])
  t.equal((await app.inject({ method: 'GET', url: '/api/users/@me/', headers: bearer(key.value) })).statusCode, 200)
  await revokeApiKey(log, key.id, context())
  t.ok(await models.waitFor((await log.headPosition())!, ['personal_api_keys']))
  t.equal((await app.inject({ method: 'GET', url: '/api/users/@me/', headers: bearer(key.value) })).statusCode, 401)
})

t.test('a key issued a moment ago is accepted at once', async (t) => {
  const { app, issueKey, bearer } = await world(t)
  const key = await issueKey(['user:read'])
  const response = await app.inject({ method: 'GET', url: '/api/users/@me/', headers: bearer(key.value) })
  t.equal(response.statusCode, 200)
})
