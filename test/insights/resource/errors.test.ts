import t from 'tap'
import { client } from '../../support/client.js'
import { insightsWorld as setup } from './support/insights-world.js'

const TOO_LONG = 'x'.repeat(401)

t.test('texts longer than 400 characters are refused as DRF refuses them, field by field', async (t) => {
  const { api, base } = await setup(t)
  for (const field of ['name', 'derived_name', 'description']) {
    const answer = await api.post(base, { [field]: TOO_LONG })
    t.equal(answer.status, 400, field)
    t.same(answer.body, { type: 'validation_error', code: 'max_length', detail: 'Ensure this field has no more than 400 characters.', attr: field })
  }
  t.equal((await api.post(base, { name: '🦔'.repeat(400) })).status, 201, 'characters are code points, as Python counts them')
  const { body } = await api.post(base, { name: 'ok' })
  t.equal((await api.patch(`${base}${body.id}/`, { name: TOO_LONG })).body.attr, 'name', 'PATCH too')
  t.equal((await api.get(base)).body.count, 2, 'nothing refused was stored')
})

t.test('a query that is not an insight node is refused with PostHog\'s parse_error', async (t) => {
  const { api, base } = await setup(t)
  const refusals = [
    [{ kind: 'TrendsQuery', series: [] }, /Input tag should be 'InsightVizNode', 'DataTableNode', 'DataVisualizationNode', 'HogQuery'/],
    [{ kind: 'InsightVizNode' }, /^1 validation error for InsightVizNode\nquery\.source\n {2}Field required$/],
    [{ kind: 'InsightVizNode', source: [] }, /query\.source\n {2}Input should be a valid dictionary/],
    [{ kind: 'DataTableNode', source: { select: [] } }, /query\.source\.kind\n {2}Field required/],
    [['InsightVizNode'], /validation error for InsightQuery/],
    ['{"kind": ', /^Value must be valid JSON\.$/],
  ] as const
  for (const [query, detail] of refusals) {
    const answer = await api.post(base, { name: 'bad', query })
    t.equal(answer.status, 400, JSON.stringify(query))
    t.match(answer.body, { type: 'invalid_request', code: 'parse_error', detail, attr: null })
  }
  const asText = await api.post(base, { query: JSON.stringify({ kind: 'HogQuery', code: 'return 1' }) })
  t.equal(asText.status, 201, 'a query sent as JSON text, as form bodies send it, is read as JSON')
  t.same(asText.body.query, { kind: 'HogQuery', code: 'return 1' })
  const { body } = await api.post(base, { name: 'ok' })
  t.equal((await api.patch(`${base}${body.id}/`, { query: { kind: 'Nope' } })).body.code, 'parse_error', 'PATCH too')
  t.equal((await api.patch(`${base}${body.id}/`, { query: null })).status, 200, 'null clears it')
  t.equal((await api.get(base)).body.count, 2)
})

t.test('filters must be an object; text that is not JSON is refused', async (t) => {
  const { api, base } = await setup(t)
  const list = await api.post(base, { filters: ['a'] })
  t.same(list.body, { type: 'validation_error', code: 'invalid_input', detail: 'Filters must be a dictionary', attr: 'filters' })
  const notJson = await api.post(base, { filters: '{bad json' })
  t.same(notJson.body, { type: 'validation_error', code: 'invalid_input', detail: 'Value must be valid JSON.', attr: 'filters' })
  const form = await api.post(base, { filters: '{"insight": "LIFECYCLE"}' })
  t.equal(form.status, 201)
  t.same(form.body.filters, { insight: 'LIFECYCLE' })
})

t.test('other fields of the wrong type are field errors', async (t) => {
  const { api, base } = await setup(t)
  const cases = [
    [{ tags: 'growth' }, 'tags'], [{ order: 'first' }, 'order'], [{ favorited: 'maybe' }, 'favorited'], [{ saved: [] }, 'saved'],
    [{ dashboards: 3 }, 'dashboards'], [{ dashboards: ['x'] }, 'dashboards__0'], [{ name: 5 }, 'name'],
  ] as const
  for (const [body, attr] of cases) {
    const answer = await api.post(base, body)
    t.equal(answer.status, 400, JSON.stringify(body))
    t.match(answer.body, { type: 'validation_error', attr })
  }
  t.equal((await api.post(base, { unknown_field: 1, result: [1, 2], id: 77 })).status, 201, 'read-only and unknown fields are ignored')
})

t.test('dashboards that do not exist, or are another environment\'s, are refused; deleted ones ignored', async (t) => {
  const { api, base, dashboards, installation } = await setup(t)
  const missing = await api.post(base, { name: 'x', dashboards: [4242] })
  t.same(missing.body, { type: 'validation_error', code: 'does_not_exist', detail: 'Invalid pk "4242" - object does not exist.', attr: 'dashboards' })
  const environment = await api.post(`/api/projects/${installation.project_id}/environments/`, { name: 'Other' })
  const foreign = await api.post(`/api/environments/${environment.body.id}/dashboards/`, { name: 'theirs' })
  const refused = await api.post(base, { name: 'x', dashboards: [foreign.body.id] })
  t.same(refused.body, { type: 'validation_error', code: 'invalid_input', detail: 'Dashboard not found', attr: null })
  const gone = await api.post(dashboards, { name: 'gone' })
  await api.patch(`${dashboards}${gone.body.id}/`, { deleted: true })
  const ignored = await api.post(base, { name: 'x', dashboards: [gone.body.id] })
  t.equal(ignored.status, 201)
  t.same(ignored.body.dashboards, [])
  t.equal((await api.get(base)).body.count, 1, 'refused creates stored nothing')
})

t.test('unknown or malformed ids are 404 on every route of an insight', async (t) => {
  const { api, base } = await setup(t)
  for (const id of ['404404', 'abcdefgh', '%2e%2e', '-1', '1.5']) {
    t.equal((await api.get(`${base}${id}/`)).status, 404, `GET ${id}`)
    t.equal((await api.patch(`${base}${id}/`, { name: 'x' })).status, 404, `PATCH ${id}`)
    t.equal((await api.get(`${base}${id}/activity/`)).status, 404, `activity ${id}`)
    t.equal((await api.get(`${base}${id}/sharing/`)).status, 404, `sharing ${id}`)
  }
  t.equal((await api.get('/api/environments/999/insights/')).status, 404, 'an unknown project')
})

t.test('a body that is not JSON, or too large to store, is refused before anything is written', async (t) => {
  const { app, api, base, key } = await setup(t)
  const broken = await app.inject({ method: 'POST', url: base, headers: { authorization: `Bearer ${key.value}`, 'content-type': 'application/json' }, payload: '{"name": ' })
  t.equal(broken.statusCode, 400)
  t.match(broken.json(), { type: 'validation_error', code: 'parse_error' })
  const huge = await api.post(base, { name: 'huge', query: { kind: 'HogQuery', code: 'x'.repeat(1_100_000) } })
  t.equal(huge.status, 413)
  t.match(huge.body, { type: 'validation_error', code: 'request_too_large' })
  t.equal((await api.get(base)).body.count, 0)
})

t.test('scopes: insight:read reads, insight:write writes, activity needs activity_log:read, sharing its own', async (t) => {
  const { app, api, base, issueKey, bearer } = await setup(t)
  const { body } = await api.post(base, { name: 'scoped' })
  const as = async (scopes: string[]) => client(app, bearer((await issueKey(scopes)).value))
  const reader = await as(['insight:read'])
  t.equal((await reader.get(base)).status, 200)
  t.equal((await reader.get(`${base}${body.id}/`)).status, 200)
  const denied = await reader.post(base, { name: 'no' })
  t.equal(denied.status, 403)
  t.same(denied.body, { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'insight:write'", attr: null })
  t.equal((await reader.patch(`${base}${body.id}/`, { name: 'no' })).status, 403)
  t.equal((await reader.delete(`${base}${body.id}/`)).status, 403, 'DELETE needs insight:write before its 405')
  t.equal((await reader.get(`${base}activity/`)).body.detail, "API key missing required scope 'activity_log:read'")
  t.equal((await reader.get(`${base}${body.id}/activity/`)).status, 403)
  t.equal((await reader.get(`${base}${body.id}/sharing/`)).body.detail, "API key missing required scope 'sharing_configuration:read'")
  const writer = await as(['insight:write'])
  t.equal((await writer.get(base)).status, 200, 'write implies read')
  t.equal((await writer.post(base, { name: 'yes' })).status, 201)
  const auditor = await as(['activity_log:read'])
  t.equal((await auditor.get(`${base}activity/`)).status, 200)
  t.equal((await auditor.get(`${base}${body.id}/activity/`)).status, 200)
  t.equal((await auditor.get(base)).status, 403)
  const other = await as(['dashboard:write'])
  t.equal((await other.get(base)).body.detail, "API key missing required scope 'insight:read'")
  const anonymous = await client(app, {}).get(base)
  t.equal(anonymous.status, 401)
  t.equal(anonymous.body.code, 'not_authenticated')
})

t.test('a bad Idempotency-Key is refused', async (t) => {
  const { app, base, key } = await setup(t)
  const answer = await client(app, { authorization: `Bearer ${key.value}`, 'idempotency-key': 'has space' }).post(base, { name: 'x' })
  t.equal(answer.status, 400)
  t.equal(answer.body.attr, 'Idempotency-Key')
})
