import t, { type Test } from 'tap'
import { world } from '../support/world.js'
import { client } from '../support/client.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  return { ...w, api, base: `/api/projects/${w.installation.project_id}/feature_flags/`, envBase: `/api/environments/${w.installation.environment_id}/feature_flags/` }
}

const rollout = (percentage: number) => ({ groups: [{ properties: [], rollout_percentage: percentage }] })

t.test('create answers 201 with PostHog\'s flag shape, reachable under both prefixes', async (t) => {
  const { api, base, envBase, installation } = await setup(t)
  const created = await api.post(base, { key: 'new-checkout', name: 'New checkout', filters: rollout(45) })
  t.equal(created.status, 201)
  t.match(created.body, {
    id: Number, key: 'new-checkout', name: 'New checkout', active: true, deleted: false, ensure_experience_continuity: false,
    filters: { groups: [{ properties: [], rollout_percentage: 45 }] }, is_simple_flag: true, version: 1,
    created_by: { uuid: installation.user_uuid }, tags: [],
  })
  t.same((await api.get(`${envBase}${created.body.id}/`)).body, created.body)
})

t.test('multivariate flags with payloads and property conditions', async (t) => {
  const { api, base } = await setup(t)
  const filters = {
    groups: [{ properties: [{ key: 'email', type: 'person', value: '@example.com', operator: 'icontains' }], rollout_percentage: 100, variant: null }],
    multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
    payloads: { test: { color: 'blue' } },
  }
  const created = await api.post(base, { key: 'pricing', filters })
  t.equal(created.status, 201)
  t.equal(created.body.is_simple_flag, false)
  t.same(created.body.filters.payloads, { test: '{"color":"blue"}' }, 'object payloads are stored as JSON text')
})

t.test('validation: key format, unique keys, percentages, variants', async (t) => {
  const { api, base } = await setup(t)
  const check = async (body: unknown, attr: string | null, detail?: string) => {
    const response = await api.post(base, body)
    t.equal(response.status, 400, JSON.stringify(body))
    t.match(response.body, { type: 'validation_error', attr, ...(detail ? { detail } : {}) })
  }
  await check({ key: 'has spaces', filters: rollout(10) }, 'key', 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.')
  await check({ filters: rollout(10) }, 'key')
  t.equal((await api.post(base, { key: 'taken', filters: rollout(10) })).status, 201)
  await check({ key: 'taken', filters: rollout(10) }, 'key', 'There is already a feature flag with this key.')
  await check({ key: 'pct', filters: rollout(101) }, 'filters')
  await check({ key: 'variants', filters: { ...rollout(100), multivariate: { variants: [{ key: 'a', rollout_percentage: 60 }, { key: 'b', rollout_percentage: 30 }] } } }, 'filters')
  await check({ key: 'nogroups', filters: { groups: [] } }, 'filters')
})

t.test('a key freed by deletion can be used again; restoring a flag whose key was retaken is refused', async (t) => {
  const { api, base } = await setup(t)
  const first = await api.post(base, { key: 'reusable', filters: rollout(10) })
  const deleted = await api.patch(`${base}${first.body.id}/`, { deleted: true })
  t.equal(deleted.status, 200)
  t.equal(deleted.body.deleted, true)
  t.equal((await api.get(`${base}${first.body.id}/`)).status, 404)
  const second = await api.post(base, { key: 'reusable', filters: rollout(20) })
  t.equal(second.status, 201)
  const restore = await api.patch(`${base}${first.body.id}/`, { deleted: false })
  t.equal(restore.status, 400)
  t.equal(restore.body.detail, 'There is already a feature flag with this key.')
  const renamed = await api.patch(`${base}${second.body.id}/`, { key: 'renamed' })
  t.equal(renamed.body.key, 'renamed')
  t.equal((await api.patch(`${base}${first.body.id}/`, { deleted: false })).status, 200, 'the key was released by the rename')
})

t.test('PATCH active and filters bumps the version; DELETE is a bare 405', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { key: 'toggle', filters: rollout(50) })
  const off = await api.patch(`${base}${body.id}/`, { active: false })
  t.equal(off.body.active, false)
  t.equal(off.body.version, 2)
  const widened = await api.patch(`${base}${body.id}/`, { filters: rollout(80) })
  t.equal(widened.body.filters.groups[0].rollout_percentage, 80)
  const refused = await api.delete(`${base}${body.id}/`)
  t.equal(refused.status, 405)
  t.equal(refused.raw, '')
  t.equal((await api.get(`${base}${body.id}/`)).status, 200)
})

t.test('the list hides deleted flags and paginates', async (t) => {
  const { api, base } = await setup(t)
  for (const key of ['a', 'b', 'c']) await api.post(base, { key, filters: rollout(1) })
  const list = await api.get(`${base}?limit=2`)
  t.equal(list.body.count, 3)
  t.equal(list.body.results.length, 2)
  t.match(list.body.next, /limit=2&offset=2$/)
  await api.patch(`${base}${list.body.results[0].id}/`, { deleted: true })
  t.equal((await api.get(base)).body.count, 2)
})

t.test('scopes', async (t) => {
  const w = await setup(t)
  const reader = client(w.app, w.bearer((await w.issueKey(['feature_flag:read'])).value))
  t.equal((await reader.get(w.base)).status, 200)
  const refused = await reader.post(w.base, { key: 'x', filters: rollout(1) })
  t.equal(refused.status, 403)
  t.equal(refused.body.detail, "API key missing required scope 'feature_flag:write'")
  t.equal((await client(w.app, {}).get(w.base)).status, 401)
})

t.test('the activity log records each change', async (t) => {
  const { api, base } = await setup(t)
  const { body } = await api.post(base, { key: 'audited', filters: rollout(5) })
  await api.patch(`${base}${body.id}/`, { active: false })
  const activity = await api.get(`${base}${body.id}/activity/`)
  t.equal(activity.body.count, 2)
  t.match(activity.body.results[0], { activity: 'updated', scope: 'FeatureFlag', detail: { name: 'audited', changes: [{ field: 'active', before: true, after: false }] } })
})

t.test('concurrent creates of one key: exactly one wins', async (t) => {
  const { api, base } = await setup(t)
  const responses = await Promise.all(Array.from({ length: 8 }, () => api.post(base, { key: 'race', filters: rollout(1) })))
  t.equal(responses.filter((r) => r.status === 201).length, 1, JSON.stringify(responses.map((r) => [r.status, r.body?.detail])))
  t.equal(responses.filter((r) => r.status === 400).length, 7)
  t.equal((await api.get(`${base}?search=race`)).body.count, 1)
})
