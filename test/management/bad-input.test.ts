import t from 'tap'
import { world } from '../support/world.js'

/** Bodies no endpoint should ever answer with a server error. */
const BODIES: unknown[] = [
  null, [], [1, 2], 'text', 42, true, {},
  { name: null, tags: 'x', filters: 'y', tiles: {}, restriction_level: 'abc' },
  { key: 5, filters: [], active: 'maybe' },
  { filters: { groups: 'x' } },
  { filters: { groups: [{ properties: 'x', rollout_percentage: 'x' }] } },
  { filters: { groups: [{ properties: [{}] }], multivariate: { variants: 'x' } } },
  { target_type: [], frequency: {}, byweekday: 'monday', start_date: 12, interval: 'x', dashboard: 'x' },
  { user_uuid: 12, level: [] },
  { enabled: null },
  { tile: null, toDashboard: 'x' },
  { timezone: 3, app_urls: 'x', session_recording_sample_rate: {} },
  { tiles: [null, 1, 'x', { id: 'x' }, { text: null }] },
  { deleted: 'x' },
]

t.test('no management endpoint answers a malformed body with a server error', async (t) => {
  const w = await world(t)
  const headers = { ...w.bearer(w.key.value), 'content-type': 'application/json' }
  const env = `/api/environments/${w.installation.environment_id}`
  const dashboard = (await w.app.inject({ method: 'POST', url: `${env}/dashboards/`, headers, payload: { name: 'd' } })).json()
  const flag = (await w.app.inject({ method: 'POST', url: `${env}/feature_flags/`, headers, payload: { key: 'f', filters: { groups: [{ properties: [], rollout_percentage: 5 }] } } })).json()
  const subscription = (await w.app.inject({
    method: 'POST', url: `${env}/subscriptions/`, headers,
    payload: { dashboard: dashboard.id, target_type: 'email', target_value: 'a@b.c', frequency: 'daily', start_date: '2022-01-01T00:00:00Z' },
  })).json()
  const targets: Array<['POST' | 'PATCH', string]> = [
    ['POST', `${env}/dashboards/`], ['PATCH', `${env}/dashboards/${dashboard.id}/`], ['PATCH', `${env}/dashboards/${dashboard.id}/sharing/`],
    ['POST', `${env}/dashboards/${dashboard.id}/collaborators/`], ['POST', `${env}/subscriptions/`], ['PATCH', `${env}/subscriptions/${subscription.id}/`],
    ['POST', `${env}/feature_flags/`], ['PATCH', `${env}/feature_flags/${flag.id}/`], ['PATCH', `${env}/`],
    ['POST', `/api/projects/${w.installation.project_id}/environments/`],
  ]
  const failures: string[] = []
  for (const [method, url] of targets) {
    for (const body of BODIES) {
      const response = await w.app.inject({ method, url, headers, payload: JSON.stringify(body) })
      const parsed = response.json() as { type?: string; attr?: unknown }
      if (response.statusCode >= 500 || (response.statusCode >= 400 && typeof parsed.type !== 'string')) {
        failures.push(`${method} ${url} ${JSON.stringify(body)} → ${response.statusCode} ${response.body}`)
      }
    }
  }
  t.same(failures, [], 'every refusal is a 4xx in PostHog\'s shape')
})

t.test('decide never answers a malformed body with a server error', async (t) => {
  const w = await world(t)
  const token = w.installation.project_api_key
  const bodies: unknown[] = [
    { token, distinct_id: 'u', groups: 'x', person_properties: [1], group_properties: { company: 'x' }, flag_keys_to_evaluate: 'x' },
    { token, distinct_id: { a: 1 } }, { token, distinct_id: 'x'.repeat(10_000) }, { token: 5 }, [token], null,
  ]
  for (const body of bodies) {
    const response = await w.app.inject({ method: 'POST', url: '/decide/?v=3', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) })
    t.ok(response.statusCode < 500, `${JSON.stringify(body).slice(0, 60)} → ${response.statusCode}`)
  }
})
