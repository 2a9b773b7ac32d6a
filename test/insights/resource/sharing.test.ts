import t, { type Test } from 'tap'
import { client } from '../../support/client.js'
import { insightsWorld } from './support/insights-world.js'

const setup = async (t: Test) => {
  const w = await insightsWorld(t)
  const { api, base } = w
  const { body } = await api.post(base, { name: 'shared insight', query: { kind: 'HogQuery', code: 'return 1' } })
  return { ...w, insight: body, url: `${base}${body.id}/sharing/` }
}

t.test('a new insight has sharing off, a stable token and no created_at yet', async (t) => {
  const { api, url } = await setup(t)
  const first = await api.get(url)
  t.equal(first.status, 200)
  t.same(Object.keys(first.body).sort(), ['access_token', 'created_at', 'enabled'])
  t.same([first.body.enabled, first.body.created_at], [false, null])
  t.match(first.body.access_token, /^[A-Za-z0-9]{20,}$/)
  t.equal((await api.get(url)).body.access_token, first.body.access_token)
})

t.test('enabling opens the public view without user details, disabling and deleting close it', async (t) => {
  const { app, api, base, insight, url } = await setup(t)
  const enabled = await api.patch(url, { enabled: true })
  t.equal(enabled.status, 200)
  t.equal(enabled.body.enabled, true)
  t.match(enabled.body.created_at, /^\d{4}-\d\d-\d\dT/)
  const anonymous = client(app, {})
  const shared = await anonymous.get(`/shared/${enabled.body.access_token}`)
  t.equal(shared.status, 200)
  t.match(shared.body.insight, {
    id: insight.id, short_id: insight.short_id, name: 'shared insight', result: null, effective_restriction_level: 37, effective_privilege_level: 21,
  })
  t.notOk('created_by' in shared.body.insight, 'no user details in the public view')
  t.equal((await anonymous.get(`/embedded/${enabled.body.access_token}`)).status, 200)
  t.equal((await api.patch(url, { enabled: false })).body.access_token, enabled.body.access_token, 'the token stays')
  t.equal((await anonymous.get(`/shared/${enabled.body.access_token}`)).status, 404)
  await api.patch(url, { enabled: true })
  await api.patch(`${base}${insight.id}/`, { deleted: true })
  t.equal((await anonymous.get(`/shared/${enabled.body.access_token}`)).status, 404, 'a deleted insight is no longer shared')
  t.equal((await api.get(url)).status, 404)
})

t.test('a bad sharing body is a field error', async (t) => {
  const { api, url } = await setup(t)
  const answer = await api.patch(url, { enabled: 'sometimes' })
  t.equal(answer.status, 400)
  t.match(answer.body, { type: 'validation_error', attr: 'enabled' })
})

t.test('a shared dashboard shows its insights in the public shape', async (t) => {
  const { app, api, insight, installation } = await setup(t)
  const dashboards = `/api/environments/${installation.environment_id}/dashboards/`
  const board = await api.post(dashboards, { name: 'public board' })
  await api.patch(`/api/environments/${installation.environment_id}/insights/${insight.id}/`, { dashboards: [board.body.id] })
  const sharing = await api.patch(`${dashboards}${board.body.id}/sharing/`, { enabled: true })
  const shared = await client(app, {}).get(`/shared/${sharing.body.access_token}`)
  t.equal(shared.status, 200)
  t.match(shared.body.dashboard.tiles[0].insight, { id: insight.id, name: 'shared insight', effective_privilege_level: 21 })
  t.notOk('created_by' in shared.body.dashboard.tiles[0].insight)
})
