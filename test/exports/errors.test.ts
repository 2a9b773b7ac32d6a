import t from 'tap'
import { client } from '../support/client.js'
import { exportsWorld, TRENDS } from './support/world.js'

const refusal = (detail: string, attr: string | null, code = 'invalid_input') => ({ type: 'validation_error', code, detail, attr })

t.test('an unknown format is not a valid choice, and a missing one is required', async (t) => {
  const w = await exportsWorld(t)
  const insight = await w.insight({ name: 'Signups', query: TRENDS })
  const unknown = await w.api.post(w.base, { export_format: 'image/jpeg', insight: insight.id })
  t.equal(unknown.status, 400)
  t.same(unknown.body, refusal('"image/jpeg" is not a valid choice.', 'export_format', 'invalid_choice'))
  t.same((await w.api.post(w.base, { insight: insight.id })).body, refusal('This field is required.', 'export_format', 'required'))
})

t.test('formats PostHog knows and Hedgelog does not draw are refused as PostHog refuses them', async (t) => {
  const w = await exportsWorld(t)
  const insight = await w.insight({ name: 'Signups', query: TRENDS })
  const pdf = await w.api.post(w.base, { export_format: 'application/pdf', insight: insight.id })
  t.equal(pdf.status, 400)
  t.same(pdf.body, refusal('Export format application/pdf is not supported.', 'export_format'))
  t.same((await w.api.post(w.base, { export_format: 'video/mp4', insight: insight.id })).body,
    refusal('Video export supports session recordings only.', 'export_format'))
})

t.test('an export needs a dashboard, an insight or a context', async (t) => {
  const w = await exportsWorld(t)
  const missing = await w.api.post(w.base, { export_format: 'text/csv' })
  t.equal(missing.status, 400)
  t.same(missing.body, refusal('Either dashboard, insight or export_context is required for an export.', null))
})

t.test('an insight that does not exist, is deleted, or is another environment\'s is refused', async (t) => {
  const w = await exportsWorld(t)
  t.same((await w.api.post(w.base, { export_format: 'text/csv', insight: 999 })).body,
    refusal('Invalid pk "999" - object does not exist.', 'insight', 'does_not_exist'))
  const deleted = await w.insight({ name: 'Gone', query: TRENDS })
  t.equal((await w.api.patch(`/api/environments/${w.env}/insights/${deleted.id}/`, { deleted: true })).status, 200)
  t.same((await w.api.post(w.base, { export_format: 'text/csv', insight: deleted.id })).body,
    refusal(`Invalid pk "${deleted.id}" - object does not exist.`, 'insight', 'does_not_exist'))
  const staging = await w.api.post(`/api/projects/${w.installation.project_id}/environments/`, { name: 'Staging' })
  t.equal(staging.status, 201, staging.raw)
  const foreign = await w.api.post(`/api/environments/${staging.body.id}/insights/`, { name: 'Theirs', query: TRENDS })
  const refused = await w.api.post(w.base, { export_format: 'text/csv', insight: foreign.body.id })
  t.equal(refused.status, 400)
  t.same(refused.body, refusal('This insight does not belong to your team.', 'insight'))
})

t.test('a picture of a dashboard, or a CSV of a context without a query, cannot be made', async (t) => {
  const w = await exportsWorld(t)
  const dashboard = (await w.api.post(`/api/environments/${w.env}/dashboards/`, { name: 'Numbers' })).body
  const png = await w.api.post(w.base, { export_format: 'image/png', dashboard: dashboard.id })
  t.equal(png.status, 400)
  t.same(png.body, refusal('This type of export is not supported for this resource.', 'export_format'))
  t.same((await w.api.post(w.base, { export_format: 'text/csv', export_context: { path: '/api/whatever' } })).body,
    refusal('This type of export is not supported for this resource.', 'export_format'))
  const bad = await w.api.post(w.base, { export_format: 'text/csv', export_context: { source: { kind: 'NoSuchQuery' } } })
  t.match(bad, { status: 400, body: { type: 'invalid_request', code: 'parse_error' } }, 'a query that does not parse is refused before anything is written')
  t.same((await w.api.post(w.base, { export_format: 'text/csv', export_context: { source: { kind: 'EventsQuery', select: ['event'] } }, expires_after: 'soon' })).body,
    refusal('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', 'expires_after', 'invalid'))
})

t.test('an unknown export, another environment\'s, or one past its expiry is not found', async (t) => {
  const w = await exportsWorld(t)
  const notFound = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null }
  t.same((await w.api.get(`${w.base}12345/`)).body, notFound)
  t.equal((await w.api.get(`${w.base}12345/content/`)).status, 404)
  const source = { kind: 'EventsQuery', select: ['event'] }
  const mine = (await w.api.post(w.base, { export_format: 'text/csv', export_context: { source } })).body
  const staging = (await w.api.post(`/api/projects/${w.installation.project_id}/environments/`, { name: 'Staging' })).body
  const elsewhere = await w.api.get(`/api/environments/${staging.id}/exports/${mine.id}/`)
  t.equal(elsewhere.status, 404)
  t.same(elsewhere.body, notFound)
  const expired = (await w.api.post(w.base, { export_format: 'text/csv', export_context: { source }, expires_after: '2020-01-01T00:00:00Z' })).body
  t.equal(expired.expires_after, '2020-01-01T00:00:00Z')
  t.same((await w.api.get(`${w.base}${expired.id}/`)).body, notFound, 'an expired export is hidden, as PostHog\'s manager hides it')
  const modelDefault = (await w.api.post(w.base, { export_format: 'text/csv', export_context: { source }, expires_after: null })).body
  const days = (Date.parse(modelDefault.expires_after) - Date.now()) / 86_400_000
  t.ok(days > 6 && days <= 7, 'a CSV asked to expire at null gets the model\'s seven days')
})

t.test('reading exports takes export:read and creating them export:write', async (t) => {
  const w = await exportsWorld(t)
  const source = { kind: 'EventsQuery', select: ['event'] }
  const made = (await w.api.post(w.base, { export_format: 'text/csv', export_context: { source } })).body
  const insightOnly = client(w.app, w.bearer((await w.issueKey(['insight:read'])).value))
  const denied = await insightOnly.get(`${w.base}${made.id}/`)
  t.equal(denied.status, 403)
  t.same(denied.body, { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'export:read'", attr: null })
  t.equal((await insightOnly.get(w.base)).status, 403)
  t.equal((await w.content(made.id, w.bearer((await w.issueKey(['insight:read'])).value))).status, 403)
  const reader = client(w.app, w.bearer((await w.issueKey(['export:read'])).value))
  t.equal((await reader.get(`${w.base}${made.id}/`)).status, 200)
  const write = await reader.post(w.base, { export_format: 'text/csv', export_context: { source } })
  t.equal(write.status, 403)
  t.equal(write.body.detail, "API key missing required scope 'export:write'")
  const writer = client(w.app, w.bearer((await w.issueKey(['export:write'])).value))
  t.equal((await writer.post(w.base, { export_format: 'text/csv', export_context: { source } })).status, 201)
})
