import t, { type Test } from 'tap'
import { world } from '../support/world.js'
import { client } from '../support/client.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`
  const { body } = await api.post(base, { name: 'shared one', description: 'for the board' })
  return { ...w, api, base, dashboard: body, url: `${base}${body.id}/sharing/` }
}

t.test('a new dashboard has sharing off, a stable token and no created_at yet', async (t) => {
  const { api, url } = await setup(t)
  const first = await api.get(url)
  t.equal(first.status, 200)
  t.same(Object.keys(first.body).sort(), ['access_token', 'created_at', 'enabled'])
  t.equal(first.body.enabled, false)
  t.equal(first.body.created_at, null)
  t.match(first.body.access_token, /^[A-Za-z0-9_-]{20,}$/)
  t.equal((await api.get(url)).body.access_token, first.body.access_token, 'the same token on every read')
})

t.test('enabling and disabling: is_shared follows, the token stays, the public view opens and closes', async (t) => {
  const { app, api, base, dashboard, url } = await setup(t)
  const token = (await api.get(url)).body.access_token
  const enabled = await api.patch(url, { enabled: true })
  t.equal(enabled.status, 200)
  t.equal(enabled.body.enabled, true)
  t.equal(enabled.body.access_token, token)
  t.match(enabled.body.created_at, /^\d{4}-\d\d-\d\dT/)
  t.equal((await api.get(`${base}${dashboard.id}/`)).body.is_shared, true)

  const anonymous = client(app, {})
  const shared = await anonymous.get(`/shared/${token}`)
  t.equal(shared.status, 200)
  t.match(shared.body.dashboard, { id: dashboard.id, name: 'shared one', description: 'for the board', effective_restriction_level: 37, effective_privilege_level: 21 })
  t.notOk('created_by' in shared.body.dashboard, 'no user details in the public view')
  t.equal((await anonymous.get(`/shared_dashboard/${token}`)).status, 200, 'the legacy path is served too')

  const disabled = await api.patch(url, { enabled: false })
  t.equal(disabled.body.enabled, false)
  t.equal((await api.get(`${base}${dashboard.id}/`)).body.is_shared, false)
  t.equal((await anonymous.get(`/shared/${token}`)).status, 404)

  await api.patch(url, { enabled: true })
  t.equal((await anonymous.get(`/shared/${token}`)).status, 200)
  await api.patch(`${base}${dashboard.id}/`, { deleted: true })
  t.equal((await anonymous.get(`/shared/${token}`)).status, 404, 'a deleted dashboard is no longer shared')
  t.equal((await anonymous.get('/shared/not-a-token')).status, 404)
})

t.test('sharing scopes: read needs sharing_configuration:read, PATCH the write scope', async (t) => {
  const w = await setup(t)
  const reader = client(w.app, w.bearer((await w.issueKey(['sharing_configuration:read'])).value))
  t.equal((await reader.get(w.url)).status, 200)
  const refused = await reader.patch(w.url, { enabled: true })
  t.equal(refused.status, 403)
  t.equal(refused.body.detail, "API key missing required scope 'sharing_configuration:write'")
  const dashboardsOnly = client(w.app, w.bearer((await w.issueKey(['dashboard:write'])).value))
  t.equal((await dashboardsOnly.get(w.url)).status, 403)
  const writer = client(w.app, w.bearer((await w.issueKey(['sharing_configuration:write'])).value))
  t.equal((await writer.patch(w.url, { enabled: true })).status, 200)
  t.match((await w.api.patch(w.url, { enabled: 'perhaps' })).body, { type: 'validation_error', attr: 'enabled' })
  t.equal((await w.api.get(`${w.base}9999/sharing/`)).status, 404)
})
