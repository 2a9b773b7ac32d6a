import t from 'tap'
import { issueApiKey } from '../../src/accounts/commands.js'
import { world, context } from '../support/world.js'
import { client } from '../support/client.js'
import { addMember, addOrganization } from '../support/members.js'

/** PostHog manages keys from a session; here a legacy unscoped key stands in for one. */
const setup = async (t: Parameters<typeof world>[0]) => {
  const w = await world(t)
  const legacy = await issueApiKey(w.log, { userUuid: w.installation.user_uuid, scopes: null, label: 'session stand-in' }, context())
  await w.models.waitFor(legacy.position!, ['personal_api_keys'])
  return { ...w, legacy, manager: client(w.app, w.bearer(legacy.value)) }
}

t.test('creating a key answers its value once; lists show only the caller\'s keys, without values', async (t) => {
  const w = await setup(t)
  const created = await w.manager.post('/api/personal_api_keys/', { label: 'Test key uno', scopes: ['insight:read'] })
  t.equal(created.status, 201)
  t.match(created.body, { id: String, label: 'Test key uno', value: /^phx_/, mask_value: /^phx_\.\.\./, last_used_at: null, scopes: ['insight:read'], scoped_teams: [], scoped_organizations: [], created_at: /Z$/ })
  const other = await addMember(w)
  const list = await w.manager.get('/api/personal_api_keys/')
  t.equal(list.status, 200)
  t.ok(Array.isArray(list.body), 'a plain array')
  t.equal(list.body[0].id, created.body.id, 'newest first')
  t.ok(list.body.every((k: { value: unknown }) => k.value === null))
  t.notOk(list.body.some((k: { id: string }) => k.id === other.key), 'no one else\'s key')
  t.equal(list.body.length, 3, 'the world\'s key, the stand-in and the new one')
  const works = await client(w.app, w.bearer(created.body.value)).get('/api/personal_api_keys/@current/')
  t.equal(works.status, 200, 'the new key works at once')
  t.equal(works.body.id, created.body.id)
})

t.test('PostHog\'s field refusals', async (t) => {
  const w = await setup(t)
  const blank = await w.manager.post('/api/personal_api_keys/', { label: '', scopes: ['insight:read'] })
  t.same(blank.body, { type: 'validation_error', code: 'blank', detail: 'This field may not be blank.', attr: 'label' })
  const missing = await w.manager.post('/api/personal_api_keys/', { label: 'x' })
  t.same(missing.body, { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'scopes' })
  const invalid = await w.manager.post('/api/personal_api_keys/', { label: 'x', scopes: ['invalid'] })
  t.same(invalid.body, { type: 'validation_error', code: 'invalid_input', detail: 'Invalid scope: invalid', attr: 'scopes' })
  const long = await w.manager.post('/api/personal_api_keys/', { label: 'x'.repeat(41), scopes: ['*'] })
  t.match(long.body, { type: 'validation_error', code: 'max_length', attr: 'label' })
  const notList = await w.manager.post('/api/personal_api_keys/', { label: 'x', scopes: '*' })
  t.match(notList.body, { type: 'validation_error', attr: 'scopes' })
  const b = await addOrganization(w)
  const foreignTeam = await w.manager.post('/api/personal_api_keys/', { label: 'x', scopes: ['*'], scoped_teams: [b.environment_id] })
  t.match(foreignTeam.body, { attr: 'scoped_teams', detail: 'You must be a member of all teams that you are scoping the key to.' })
  const foreignOrg = await w.manager.post('/api/personal_api_keys/', { label: 'x', scopes: ['*'], scoped_organizations: [b.organization_id] })
  t.match(foreignOrg.body, { attr: 'scoped_organizations', detail: 'You must be a member of all organizations that you are scoping the key to.' })
})

t.test('an eleventh key is refused', async (t) => {
  const w = await setup(t)
  for (let i = (await w.manager.get('/api/personal_api_keys/')).body.length; i < 10; i++) {
    t.equal((await w.manager.post('/api/personal_api_keys/', { label: `k${i}`, scopes: ['*'] })).status, 201)
  }
  const eleventh = await w.manager.post('/api/personal_api_keys/', { label: 'one too many', scopes: ['*'] })
  t.same(eleventh.body, { type: 'validation_error', code: 'invalid_input', detail: 'You can only have 10 personal API keys. Remove an existing key before creating a new one.', attr: null })
})

t.test('a scoped key may not manage keys, but may read itself as @current', async (t) => {
  const w = await setup(t)
  const scoped = client(w.app, w.bearer(w.key.value))
  for (const response of [await scoped.get('/api/personal_api_keys/'), await scoped.post('/api/personal_api_keys/', { label: 'x', scopes: ['*'] }), await scoped.delete(`/api/personal_api_keys/${w.legacy.id}/`), await scoped.get(`/api/personal_api_keys/${w.legacy.id}/`)]) {
    t.equal(response.status, 403)
    t.equal(response.body.detail, 'This action does not support Personal API Key access')
  }
  const current = await scoped.get('/api/personal_api_keys/@current/')
  t.equal(current.status, 200)
  t.match(current.body, { id: w.key.id, value: null, scopes: ['*'] })
})

t.test('revoking a key over HTTP makes it fail at once; another user\'s key is a 404', async (t) => {
  const w = await setup(t)
  const created = await w.manager.post('/api/personal_api_keys/', { label: 'short-lived', scopes: ['*'] })
  t.equal((await w.manager.delete(`/api/personal_api_keys/${created.body.id}/`)).status, 204)
  t.equal((await client(w.app, w.bearer(created.body.value)).get('/api/users/@me/')).status, 401)
  t.equal((await w.manager.delete(`/api/personal_api_keys/${created.body.id}/`)).status, 404)
  const member = await addMember(w, { scopes: null })
  const theirs = (await client(w.app, member.headers).get('/api/personal_api_keys/')).body[0].id
  t.equal((await w.manager.delete(`/api/personal_api_keys/${theirs}/`)).status, 404)
  t.equal((await w.manager.get(`/api/personal_api_keys/${theirs}/`)).status, 404)
})

t.test('a key scoped to one environment reaches it and nothing else', async (t) => {
  const w = await setup(t)
  const second = await client(w.app, w.bearer(w.key.value)).post(`/api/projects/${w.installation.project_id}/environments/`, { name: 'Staging' })
  const created = await w.manager.post('/api/personal_api_keys/', { label: 'one env', scopes: ['*'], scoped_teams: [w.installation.environment_id] })
  t.same(created.body.scoped_teams, [w.installation.environment_id])
  const api = client(w.app, w.bearer(created.body.value))
  t.equal((await api.get(`/api/projects/${w.installation.project_id}/`)).status, 200)
  t.equal((await api.get(`/api/environments/${w.installation.environment_id}/dashboards/`)).status, 200)
  const other = await api.get(`/api/environments/${second.body.id}/dashboards/`)
  t.equal(other.status, 403)
  t.equal(other.body.detail, `API key does not have access to the requested project: ID ${second.body.id}.`)
  t.equal((await api.get(`/api/environments/${second.body.id}/`)).status, 403)
  const list = await api.get('/api/projects/')
  t.equal(list.status, 403)
  t.equal(list.body.detail, 'API keys with scoped projects are only supported on project-based endpoints.')
  t.equal((await api.get(`/api/organizations/${w.installation.organization_id}/`)).status, 403)
})

t.test('a key scoped to its organization lists that organization\'s projects and reaches no other', async (t) => {
  const w = await setup(t)
  const b = await addOrganization(w)
  const created = await w.manager.post('/api/personal_api_keys/', { label: 'one org', scopes: ['*'], scoped_organizations: [w.installation.organization_id] })
  t.equal(created.status, 201)
  const api = client(w.app, w.bearer(created.body.value))
  const projects = await api.get('/api/projects/')
  t.same(projects.body.results.map((p: { id: number }) => p.id), [w.installation.project_id])
  t.equal((await api.get(`/api/environments/${b.environment_id}/dashboards/`)).status, 403)
  t.equal((await api.get(`/api/organizations/${b.organization_id}/`)).status, 403)
})
