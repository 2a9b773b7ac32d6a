import t, { type Test } from 'tap'
import { world } from '../support/world.js'
import { client } from '../support/client.js'
import { addAdmin, addMember, addStranger } from '../support/members.js'

const BASIC_KEYS = [
  'access_control', 'api_token', 'completed_snippet_onboarding', 'has_completed_onboarding_for', 'id', 'ingested_event',
  'is_demo', 'name', 'organization', 'project_id', 'timezone', 'uuid',
]

const setup = async (t: Test) => {
  const w = await world(t)
  return { ...w, api: client(w.app, w.bearer(w.key.value)), envs: `/api/projects/${w.installation.project_id}/environments/` }
}

t.test('the environment list has exactly the basic keys', async (t) => {
  const { api, installation } = await setup(t)
  const list = await api.get('/api/environments/')
  t.equal(list.status, 200)
  t.equal(list.body.count, 1)
  t.same(Object.keys(list.body.results[0]).sort(), BASIC_KEYS)
  t.match(list.body.results[0], {
    id: installation.environment_id, organization: installation.organization_id, project_id: installation.project_id,
    api_token: installation.project_api_key, name: 'Default project', timezone: 'UTC', is_demo: false, access_control: false,
    completed_snippet_onboarding: false, ingested_event: false, has_completed_onboarding_for: null,
  })
})

t.test('the detail is the full settings record', async (t) => {
  const { api } = await setup(t)
  const current = await api.get('/api/environments/@current/')
  t.equal(current.status, 200)
  t.match(current.body, {
    timezone: 'UTC', is_demo: false, has_group_types: false, capture_console_log_opt_in: true, capture_performance_opt_in: true,
    data_attributes: ['data-attr'], session_recording_opt_in: false, anonymize_ips: false, effective_membership_level: 15,
    test_account_filters: [], path_cleaning_filters: [], user_access_level: 'admin', person_on_events_querying_enabled: true,
  })
  t.ok('created_at' in current.body && 'updated_at' in current.body)
})

t.test('an admin creates an environment in the same project, with PostHog\'s defaults and a fresh token', async (t) => {
  const w = await setup(t)
  const admin = client(w.app, (await addAdmin(w)).headers)
  const created = await admin.post(w.envs, { name: 'Test', anonymize_ips: true, timezone: 'Europe/Warsaw', app_urls: ['https://a.example'] })
  t.equal(created.status, 201)
  t.match(created.body, {
    name: 'Test', access_control: false, effective_membership_level: 8, project_id: w.installation.project_id,
    anonymize_ips: true, timezone: 'Europe/Warsaw', app_urls: ['https://a.example'], data_attributes: ['data-attr'],
  })
  t.match(created.body.api_token, /^phc_\w{20,}$/)
  t.not(created.body.api_token, w.installation.project_api_key)
  t.not(created.body.id, w.installation.environment_id)
  const fetched = await w.api.get(`${w.envs}${created.body.id}/`)
  t.same(fetched.body.api_token, created.body.api_token)
  t.equal((await w.api.get(`/api/environments/${created.body.id}/`)).body.name, 'Test', 'reachable at /api/environments/{id}/ too')
  const projects = await w.api.get('/api/projects/')
  t.equal(projects.body.count, 1, 'no new project')
  t.equal((await w.api.get(w.envs)).body.count, 2)
})

t.test('creation refusals', async (t) => {
  const w = await setup(t)
  const member = client(w.app, (await addMember(w)).headers)
  const denied = await member.post(w.envs, { name: 'Nope' })
  t.same(denied.body, { type: 'authentication_error', code: 'permission_denied', detail: 'Your organization access level is insufficient.', attr: null })
  t.equal((await member.post(w.envs, { name: 'Demo', is_demo: true })).status, 201, 'a demo environment needs no admin')
  const flat = await w.api.post('/api/environments/', { name: 'x' })
  t.same(flat.body, {
    type: 'validation_error', code: 'invalid_input', attr: null,
    detail: 'Environments must be created under a specific project. Send the POST request to /api/projects/<project_id>/environments/ instead.',
  })
  const missing = await w.api.post('/api/projects/4444444/environments/', { name: 'x' })
  t.equal(missing.status, 404)
  t.equal(missing.body.detail, 'Project not found.')
  const primary = await w.api.post(w.envs, { name: 'x', primary_dashboard: 1 })
  t.same(primary.body, { type: 'validation_error', code: 'invalid_input', detail: 'Primary dashboard cannot be set on project creation.', attr: 'primary_dashboard' })
  const blank = await w.api.post(w.envs, { name: '' })
  t.match(blank.body, { type: 'validation_error', attr: 'name' })
  const badType = await w.api.post(w.envs, { name: 'x', anonymize_ips: 'sometimes' })
  t.match(badType.body, { attr: 'anonymize_ips', detail: 'Must be a valid boolean.' })
  const stranger = client(w.app, (await addStranger(w)).headers)
  t.equal((await stranger.post(w.envs, { name: 'x' })).body.detail, 'Organization not found.')
})

t.test('PATCH changes settings; an invalid time zone is an invalid choice', async (t) => {
  const w = await setup(t)
  const url = `/api/environments/${w.installation.environment_id}/`
  const patched = await w.api.patch(url, { name: 'Production', timezone: 'America/New_York', session_recording_opt_in: true })
  t.equal(patched.status, 200)
  t.match(patched.body, { name: 'Production', timezone: 'America/New_York', session_recording_opt_in: true })
  const bad = await w.api.patch(url, { timezone: 'America/I_Dont_Exist' })
  t.same(bad.body, { type: 'validation_error', code: 'invalid_choice', detail: '"America/I_Dont_Exist" is not a valid choice.', attr: 'timezone' })
  t.equal((await w.api.get(url)).body.timezone, 'America/New_York')
  const viaProject = await w.api.patch(`${w.envs}${w.installation.environment_id}/`, { name: 'Prod' })
  t.equal(viaProject.body.name, 'Prod')
})

t.test('another organization\'s environment is simply not found', async (t) => {
  const w = await setup(t)
  const elsewhere = await addStranger(w)
  const stranger = client(w.app, elsewhere.headers)
  const url = `/api/environments/${w.installation.environment_id}/`
  const read = await stranger.get(url)
  t.same(read.body, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })
  t.equal((await stranger.patch(url, { timezone: 'Europe/Paris' })).status, 404)
  t.equal((await w.api.get(url)).body.timezone, 'UTC', 'unchanged')
  t.same((await stranger.get('/api/environments/')).body.results.map((e: { id: number }) => e.id), [elsewhere.environmentId], 'not listed either: only their own')
  t.equal((await stranger.get(`${w.envs}`)).status, 403)
})

t.test('reset_token gives a new phc_ token; admins only', async (t) => {
  const w = await setup(t)
  const url = `/api/environments/${w.installation.environment_id}/reset_token/`
  const reset = await w.api.patch(url)
  t.equal(reset.status, 200)
  t.match(reset.body.api_token, /^phc_/)
  t.not(reset.body.api_token, w.installation.project_api_key)
  const member = client(w.app, (await addMember(w)).headers)
  t.equal((await member.patch(url)).status, 403)
})

t.test('projects: list and get, with project:read', async (t) => {
  const w = await setup(t)
  const list = await w.api.get('/api/projects/')
  t.equal(list.status, 200)
  t.match(list.body, { count: 1, next: null, previous: null })
  t.same(Object.keys(list.body.results[0]).sort(), BASIC_KEYS)
  t.equal(list.body.results[0].id, w.installation.project_id)
  const one = await w.api.get(`/api/projects/${w.installation.project_id}/`)
  t.match(one.body, { id: w.installation.project_id, name: 'Default project', timezone: 'UTC' })
  const flagsOnly = client(w.app, w.bearer((await w.issueKey(['feature_flag:read'])).value))
  const denied = await flagsOnly.get(`/api/projects/${w.installation.project_id}/`)
  t.equal(denied.status, 403)
  t.equal(denied.body.detail, "API key missing required scope 'project:read'")
  t.equal((await w.api.get('/api/projects/abc/')).status, 404)
  t.equal((await w.api.get('/api/projects/999/')).body.detail, 'Project not found.')
})

t.test('the environment list paginates', async (t) => {
  const w = await setup(t)
  for (const name of ['two', 'three']) await w.api.post(w.envs, { name })
  const page = await w.api.get(`${w.envs}?limit=1&offset=1`)
  t.equal(page.body.count, 3)
  t.same(page.body.results.map((e: { name: string }) => e.name), ['two'])
  t.equal(page.body.next, `http://localhost${w.envs}?limit=1&offset=2`)
  t.equal(page.body.previous, `http://localhost${w.envs}?limit=1`)
})

t.test('a new environment\'s token is accepted by capture at once', async (t) => {
  const w = await setup(t)
  const created = await w.api.post(w.envs, { name: 'Fresh' })
  const captured = await w.app.inject({
    method: 'POST', url: '/capture/', payload: { api_key: created.body.api_token, event: 'first', distinct_id: 'someone' },
  })
  t.equal(captured.statusCode, 200)
  const { collect } = await import('../support/collect.js')
  const stored = (await collect(w.log.readAll())).filter((e) => e.type === 'EventsCaptured')
  t.equal(stored.length, 1)
  t.equal(stored[0]!.data['environmentId'], created.body.id, 'the event belongs to the new environment')
})
