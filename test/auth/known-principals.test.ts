import t from 'tap'
import { revokeApiKey } from '../../src/accounts/commands.js'
import { newEventId } from '../../src/kernel/ids.js'
import { world } from '../support/world.js'

const context = () => ({ actor: 'test', now: new Date().toISOString(), correlationId: newEventId() })

t.test('a known key is served from memory until the key read models move, and a revoked key stops working once projected', async (t) => {
  const w = await world(t)
  const url = `/api/projects/${w.installation.project_id}/dashboards/`
  const key = await w.issueKey(['dashboard:read'])
  t.ok(await w.models.waitFor((await w.log.headPosition())!, ['personal_api_keys', 'users']), 'the key is projected')
  let keyReads = 0
  const find = w.models.find.bind(w.models)
  w.models.find = (async (collection: Parameters<typeof find>[0], query?: Parameters<typeof find>[1]) => {
    if (collection === 'personal_api_keys') keyReads++
    return find(collection, query)
  }) as typeof w.models.find

  t.equal((await w.app.inject({ method: 'GET', url, headers: w.bearer(key.value) })).statusCode, 200)
  t.equal(keyReads, 1, 'the first request reads the key')
  for (let i = 0; i < 5; i++) t.equal((await w.app.inject({ method: 'GET', url, headers: w.bearer(key.value) })).statusCode, 200)
  t.equal(keyReads, 1, 'later requests are answered from memory')

  const revoked = await revokeApiKey(w.log, key.id, context())
  t.ok(await w.models.waitFor(revoked!, ['personal_api_keys']), 'the revocation is projected')
  const refused = await w.app.inject({ method: 'GET', url, headers: w.bearer(key.value) })
  t.equal(refused.statusCode, 401, 'the revoked key is refused at the first request after its projection')
  t.ok(keyReads > 1, 'the key was read again')
})

t.test('an unknown key is never remembered: each try reads the read model again', async (t) => {
  const w = await world(t)
  let keyReads = 0
  const find = w.models.find.bind(w.models)
  w.models.find = (async (collection: Parameters<typeof find>[0], query?: Parameters<typeof find>[1]) => {
    if (collection === 'personal_api_keys') keyReads++
    return find(collection, query)
  }) as typeof w.models.find
  const url = `/api/projects/${w.installation.project_id}/dashboards/`
  for (let i = 0; i < 3; i++) t.equal((await w.app.inject({ method: 'GET', url, headers: w.bearer('phx_unknown') })).statusCode, 401)
  t.equal(keyReads, 6, 'two reads per try: before and after the bounded wait')
})

t.test('a key served from memory is held to each route\'s scopes as a key read from the store is', async (t) => {
  const w = await world(t)
  const url = `/api/projects/${w.installation.project_id}/dashboards/`
  const key = await w.issueKey(['dashboard:read'])
  t.ok(await w.models.waitFor((await w.log.headPosition())!, ['personal_api_keys', 'users']), 'the key is projected')
  t.equal((await w.app.inject({ method: 'GET', url, headers: w.bearer(key.value) })).statusCode, 200, 'read, and remembered')
  const write = await w.app.inject({ method: 'POST', url, headers: w.bearer(key.value), payload: { name: 'x' } })
  t.equal(write.statusCode, 403)
  t.match(write.json(), { detail: "API key missing required scope 'dashboard:write'" })
  const other = await w.app.inject({ method: 'GET', url: `/api/projects/${w.installation.project_id}/feature_flags/`, headers: w.bearer(key.value) })
  t.equal(other.statusCode, 403, 'another resource')
  t.equal((await w.app.inject({ method: 'GET', url })).statusCode, 401, 'no key at all')
})
