import t, { type Test } from 'tap'
import { client } from '../support/client.js'
import { world } from '../support/world.js'
import { addOrganization } from '../support/members.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const flags = `/api/environments/${w.installation.environment_id}/feature_flags/`
  const definitions = `/flags/definitions?token=${w.installation.project_api_key}&send_cohorts`
  const get = (url: string, headers: Record<string, string>) => w.app.inject({ method: 'GET', url, headers })
  return { ...w, api, flags, definitions, get, auth: w.bearer(w.key.value) }
}

t.test('/flags/definitions answers the local-evaluation payload with an ETag, and 304 while nothing changed', async (t) => {
  const { api, flags, definitions, get, auth } = await setup(t)
  t.equal((await api.post(flags, { key: 'beta', filters: { groups: [{ properties: [], rollout_percentage: 30 }] } })).status, 201)
  const first = await get(definitions, auth)
  t.equal(first.statusCode, 200)
  t.match(first.json(), { flags: [{ key: 'beta', active: true, deleted: false, filters: { groups: [{ rollout_percentage: 30 }] } }], group_type_mapping: {}, cohorts: {} })
  t.same(first.json(), (await get(definitions.replace('/flags/definitions', '/api/feature_flag/local_evaluation'), auth)).json(), 'the same payload as the older endpoint')
  const etag = String(first.headers['etag'])
  t.match(etag, /^"[0-9a-f]{40}"$/)
  const unchanged = await get(definitions, { ...auth, 'if-none-match': etag })
  t.equal(unchanged.statusCode, 304)
  t.equal(unchanged.body, '')
  t.equal((await api.post(flags, { key: 'gamma' })).status, 201)
  const changed = await get(definitions, { ...auth, 'if-none-match': etag })
  t.equal(changed.statusCode, 200)
  t.not(changed.headers['etag'], etag)
  t.equal(changed.json().flags.length, 2)
})

t.test('/flags/definitions needs a personal key with feature_flag:read, for the caller\'s own project', async (t) => {
  const { definitions, get, issueKey, bearer } = await setup(t)
  t.equal((await get(definitions, {})).statusCode, 401)
  t.equal((await get(definitions, bearer('phx_not_a_key'))).statusCode, 401)
  const narrow = await issueKey(['dashboard:read'])
  t.equal((await get(definitions, bearer(narrow.value))).statusCode, 403)
  const other = await get('/flags/definitions?token=phc_unknown', bearer((await issueKey(['feature_flag:read'])).value))
  t.equal(other.statusCode, 404)
})

t.test('another organization\'s token is refused with 403 at /flags/definitions and a bare 404 at …/remote_config', async (t) => {
  const w = await setup(t)
  const b = await addOrganization(w)
  const foreign = await w.get(`/flags/definitions?token=${b.project_api_key}&send_cohorts`, w.auth)
  t.equal(foreign.statusCode, 403)
  t.match(foreign.json(), { type: 'authentication_error', detail: "You don't have access to the project." })
  const theirs = await client(w.app, b.headers).post(`/api/environments/${b.environment_id}/feature_flags/`, {
    key: 'their-settings', is_remote_configuration: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: { secret: 1 } } },
  })
  t.equal(theirs.status, 201)
  const path = `/api/projects/@current/feature_flags/their-settings/remote_config?token=${b.project_api_key}`
  t.equal((await w.get(path, b.headers)).statusCode, 200, 'their own key reads it')
  const remote = await w.get(path, w.auth)
  t.equal(remote.statusCode, 404)
  t.equal(remote.body, '')
})

t.test('is_remote_configuration is stored, returned, patchable, and serves the payload at …/remote_config', async (t) => {
  const { api, flags, installation } = await setup(t)
  const created = await api.post(flags, { key: 'settings', is_remote_configuration: true, filters: { groups: [{ properties: [], rollout_percentage: 100 }], payloads: { true: { theme: 'dark' } } } })
  t.equal(created.status, 201)
  t.equal(created.body.is_remote_configuration, true)
  t.equal((await api.get(`${flags}${created.body.id}/`)).body.is_remote_configuration, true)
  const remote = `/api/projects/@current/feature_flags/settings/remote_config?token=${installation.project_api_key}`
  const payload = await api.get(remote)
  t.equal(payload.status, 200)
  t.same(JSON.parse(payload.body), { theme: 'dark' }, 'the payload is answered as PostHog stores it: JSON text')
  t.equal((await api.get(`/api/projects/@current/feature_flags/${created.body.id}/remote_config`)).status, 200, 'by id too')

  const plain = await api.patch(`${flags}${created.body.id}/`, { is_remote_configuration: false })
  t.equal(plain.body.is_remote_configuration, false)
  t.equal((await api.get(remote)).status, 404, 'an ordinary flag has no remote config')
  t.equal((await api.get('/api/projects/@current/feature_flags/missing/remote_config')).status, 404)
  t.equal((await api.patch(`${flags}${created.body.id}/`, { is_remote_configuration: 'maybe' })).status, 400)

  const empty = await api.post(flags, { key: 'empty-config', is_remote_configuration: true })
  t.equal((await api.get('/api/projects/@current/feature_flags/empty-config/remote_config')).body, null, 'no payload answers null')
  t.equal(empty.status, 201)
})
