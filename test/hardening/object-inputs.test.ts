import t from 'tap'
import { world } from '../support/world.js'

// JSON may name a key `toString` or `valueOf`; such an object cannot be turned into text by
// String(), so a message that quotes the refused value must print it as Python's str() does.
const awkward = { toString: { x: 1 }, valueOf: null }
const quoted = `"{'toString': {'x': 1}, 'valueOf': None}" is not a valid choice.`

t.test('a choice field refuses an object whose keys shadow toString and valueOf with 400 in DRF\'s shape', async (t) => {
  const w = await world(t)
  const pid = w.installation.project_id
  const headers = w.bearer(w.key.value)
  const survey = (await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/surveys/`, headers, payload: { name: 's', type: 'popover' } })).json() as { id: number }
  const dashboard = (await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, headers, payload: { name: 'd' } })).json() as { id: number }
  const subscription = { dashboard: dashboard.id, target_type: 'email', target_value: 'a@example.com', frequency: 'daily', start_date: '2022-01-01T00:00:00Z' }

  const cases: { what: string; method: 'POST' | 'PATCH'; url: string; payload: Record<string, unknown>; attr: string }[] = [
    { what: 'a survey\'s type on create', method: 'POST', url: `/api/projects/${pid}/surveys/`, payload: { name: 's', type: awkward }, attr: 'type' },
    { what: 'a survey\'s type on update', method: 'PATCH', url: `/api/projects/${pid}/surveys/${survey.id}/`, payload: { type: awkward }, attr: 'type' },
    { what: 'a question\'s type', method: 'PATCH', url: `/api/projects/${pid}/surveys/${survey.id}/`, payload: { questions: [{ type: awkward, question: 'q' }] }, attr: 'questions__0__type' },
    { what: 'a survey\'s schedule (a plain enum)', method: 'PATCH', url: `/api/projects/${pid}/surveys/${survey.id}/`, payload: { schedule: awkward }, attr: 'schedule' },
    { what: 'a subscription\'s frequency', method: 'POST', url: `/api/projects/${pid}/subscriptions/`, payload: { ...subscription, frequency: awkward }, attr: 'frequency' },
    { what: 'an export\'s format', method: 'POST', url: `/api/projects/${pid}/exports/`, payload: { export_format: awkward, dashboard: dashboard.id }, attr: 'export_format' },
  ]
  for (const { what, method, url, payload, attr } of cases) {
    const answer = await w.app.inject({ method, url, headers, payload })
    t.equal(answer.statusCode, 400, `${what}: 400, not a server error (${answer.body.slice(0, 200)})`)
    t.same(answer.json(), { type: 'validation_error', code: 'invalid_choice', detail: quoted, attr }, `${what}: DRF's invalid choice, quoting the value`)
  }
})

t.test('a name Object.prototype holds is no template, no boolean word and no known choice', async (t) => {
  const w = await world(t)
  const pid = w.installation.project_id
  const headers = w.bearer(w.key.value)
  for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
    const dashboard = await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, headers, payload: { name: 'd', use_template: name } })
    t.equal(dashboard.statusCode, 400, `use_template ${name}: 400 (${dashboard.body.slice(0, 200)})`)
    t.same(dashboard.json(), { type: 'validation_error', code: 'invalid_input', detail: `Invalid template provided: ${name}`, attr: 'use_template' })
    const flag = await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/feature_flags/`, headers, payload: { key: `k-${name.replace(/_/g, '')}`, active: name, filters: { groups: [] } } })
    t.equal(flag.statusCode, 400, `a boolean given as ${name}: 400 (${flag.body.slice(0, 200)})`)
    t.equal(flag.json().detail, 'Must be a valid boolean.')
  }
})
