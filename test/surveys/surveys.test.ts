import t, { type Test } from 'tap'
import { client } from '../support/client.js'
import { world } from '../support/world.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const base = `/api/projects/${w.installation.project_id}/surveys/`
  const publicList = (token = w.installation.project_api_key) => w.app.inject({ method: 'GET', url: `/api/surveys/?token=${token}`, headers: { origin: 'https://shop.example' } })
  return { ...w, api, base, publicList }
}

const NPS = { name: 'NPS', type: 'popover', questions: [{ type: 'rating', question: 'How likely are you to recommend us?', scale: 10 }] }

t.test('create answers 201 with PostHog\'s survey shape and an internal targeting flag', async (t) => {
  const { api, base } = await setup(t)
  const created = await api.post(base, { ...NPS, start_date: '2025-01-01T00:00:00Z' })
  t.equal(created.status, 201)
  t.match(created.body, {
    id: Number, name: 'NPS', type: 'popover', description: '', archived: false, linked_flag: null, targeting_flag: null,
    internal_targeting_flag: { key: /^survey-targeting-[0-9a-f]{8}-custom$/, active: true },
    questions: [{ type: 'rating', question: 'How likely are you to recommend us?', scale: 10 }],
    start_date: '2025-01-01T00:00:00Z', end_date: null,
  })
  t.same((await api.get(`${base}${created.body.id}/`)).body, created.body)
  const listed = await api.get(base)
  t.equal(listed.body.count, 1)
  t.same(listed.body.results[0], created.body)
})

t.test('targeting filters become a targeting flag that PATCH updates and removes', async (t) => {
  const { api, base, installation } = await setup(t)
  const filters = { groups: [{ properties: [{ key: 'email', type: 'person', operator: 'icontains', value: '@example.com' }], rollout_percentage: 100 }] }
  const created = await api.post(base, { ...NPS, targeting_flag_filters: filters })
  t.match(created.body.targeting_flag, { key: /^survey-targeting-[0-9a-f]{8}$/, filters })
  const flagId = created.body.targeting_flag.id
  const widened = await api.patch(`${base}${created.body.id}/`, { targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 50 }] } })
  t.equal(widened.body.targeting_flag.id, flagId)
  t.equal(widened.body.targeting_flag.filters.groups[0].rollout_percentage, 50)
  const removed = await api.patch(`${base}${created.body.id}/`, { remove_targeting_flag: true })
  t.equal(removed.body.targeting_flag, null)
  t.equal((await api.get(`/api/projects/${installation.project_id}/feature_flags/${flagId}/`)).status, 404, 'the flag is deleted')
})

t.test('archiving takes a survey out of the public list; the public list needs the project token', async (t) => {
  const { api, base, publicList } = await setup(t)
  const created = await api.post(base, { ...NPS, start_date: new Date().toISOString() })
  const listed = await publicList()
  t.equal(listed.statusCode, 200)
  t.equal(listed.headers['access-control-allow-origin'], 'https://shop.example')
  t.match(listed.json(), { surveys: [{ id: created.body.id, name: 'NPS', internal_targeting_flag_key: created.body.internal_targeting_flag.key }] })
  const archived = await api.patch(`${base}${created.body.id}/`, { archived: true })
  t.equal(archived.body.archived, true)
  t.equal((await api.get(`${base}${created.body.id}/`)).body.archived, true, 'the survey itself reads as archived')
  t.same((await publicList()).json().surveys, [])
  t.equal((await api.get(`${base}?archived=true`)).body.count, 1)
  t.equal((await api.get(`${base}?archived=false`)).body.count, 0)
  t.equal((await publicList('phc_unknown')).statusCode, 401)
  t.match((await publicList('')).json(), { type: 'authentication_error', code: 'no_api_key' })
})

t.test('the survey\'s history is in its own stream, read by …/activity/', async (t) => {
  const { api, base } = await setup(t)
  const created = await api.post(base, NPS)
  await api.patch(`${base}${created.body.id}/`, { name: 'NPS 2025' })
  const activity = await api.get(`${base}${created.body.id}/activity/`)
  t.equal(activity.status, 200)
  t.same(activity.body.results.map((entry: { activity: string }) => entry.activity), ['updated', 'created'])
})

t.test('bad input is refused in PostHog\'s shape, and DELETE is a bare 405', async (t) => {
  const { api, base, issueKey, app, bearer } = await setup(t)
  const check = async (body: unknown, attr: string) => {
    const response = await api.post(base, body)
    t.equal(response.status, 400, JSON.stringify(body))
    t.match(response.body, { type: 'validation_error', attr })
  }
  await check({ type: 'popover' }, 'name')
  await check({ name: 'x' }, 'type')
  await check({ name: 'x', type: 'banner' }, 'type')
  await check({ name: 'x', type: 'popover', questions: [{ type: 'essay', question: 'q' }] }, 'questions__0__type')
  await check({ name: 'x', type: 'popover', questions: [{ type: 'open' }] }, 'questions__0__question')
  await check({ name: 'x', type: 'popover', start_date: 'soon' }, 'start_date')
  await check({ name: 'x', type: 'popover', linked_flag_id: 9999 }, 'linked_flag_id')
  await check({ name: 'x', type: 'popover', targeting_flag_filters: { groups: [{ rollout_percentage: 120 }] } }, 'targeting_flag_filters')
  const created = await api.post(base, NPS)
  t.equal((await api.delete(`${base}${created.body.id}/`)).status, 405)
  t.equal((await api.get(`${base}999/`)).status, 404)
  t.equal((await api.get(`${base}abc/`)).status, 404)
  const readOnly = await issueKey(['survey:read'])
  const refused = await app.inject({ method: 'POST', url: base, headers: { ...bearer(readOnly.value), 'content-type': 'application/json' }, payload: JSON.stringify(NPS) })
  t.equal(refused.statusCode, 403)
})
