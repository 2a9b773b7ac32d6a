import t, { type Test } from 'tap'
import { client } from '../support/client.js'
import { world } from '../support/world.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const token = w.installation.project_api_key
  const get = (url: string, headers: Record<string, string> = {}) => w.app.inject({ method: 'GET', url, headers })
  return { ...w, api, token, get, environment: `/api/environments/${w.installation.environment_id}` }
}

t.test('a fresh environment: autocapture on, recording and site apps off, flags and surveys not announced', async (t) => {
  const { get, token } = await setup(t)
  const response = await get(`/array/${token}/config`)
  t.equal(response.statusCode, 200)
  t.equal(response.headers['cache-control'], 'public, max-age=300')
  t.same(response.json(), {
    token, supportedCompression: ['gzip', 'gzip-js'], hasFeatureFlags: false, captureDeadClicks: false,
    capturePerformance: { network_timing: true, web_vitals: false, web_vitals_allowed_metrics: null },
    autocapture_opt_out: false, autocaptureExceptions: false, elementsChainAsString: true,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] }, sessionRecording: false,
    heatmaps: false, surveys: false, defaultIdentifiedOnly: true, siteApps: [],
  })
})

t.test('what the environment settings say is what the config says, recording included (always off)', async (t) => {
  const { api, get, token, environment } = await setup(t)
  const patched = await api.patch(`${environment}/`, {
    autocapture_opt_out: true, heatmaps_opt_in: true, capture_dead_clicks: true, autocapture_exceptions_opt_in: true,
    autocapture_web_vitals_opt_in: true, capture_performance_opt_in: false, session_recording_opt_in: true, surveys_opt_in: true,
  })
  t.equal(patched.status, 200)
  t.equal((await api.post(`${environment}/feature_flags/`, { key: 'on', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } })).status, 201)
  t.match((await get(`/array/${token}/config`)).json(), {
    autocapture_opt_out: true, heatmaps: true, captureDeadClicks: true, autocaptureExceptions: { endpoint: '/e/' },
    errorTracking: { autocaptureExceptions: true }, capturePerformance: { network_timing: false, web_vitals: true },
    sessionRecording: false, surveys: true, hasFeatureFlags: true,
  })
})

t.test('the script form files the same config under the token, for posthog-js to find', async (t) => {
  const { get, token } = await setup(t)
  const script = await get(`/array/${token}/config.js`)
  t.equal(script.statusCode, 200)
  t.match(script.headers['content-type'], /^application\/javascript/)
  const window: { _POSTHOG_REMOTE_CONFIG?: Record<string, { config: Record<string, unknown>; siteApps: unknown[] }> } = {}
  new Function('window', script.body)(window)
  const { siteApps: _siteApps, ...expected } = (await get(`/array/${token}/config`)).json()
  t.same(window._POSTHOG_REMOTE_CONFIG?.[token], { config: expected, siteApps: [] })
})

t.test('a malformed token is 400 and an unknown one 404, both readable by a page on another origin', async (t) => {
  const { get } = await setup(t)
  const origin = { origin: 'https://shop.example' }
  const malformed = await get('/array/not%20a%20token/config', origin)
  t.equal(malformed.statusCode, 400)
  t.match(malformed.json(), { type: 'validation_error', code: 'invalid_token' })
  t.equal(malformed.headers['access-control-allow-origin'], 'https://shop.example')
  const unknown = await get('/array/phc_nobody/config.js', origin)
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.headers['access-control-allow-origin'], 'https://shop.example')
  t.equal((await get(`/array/${'a'.repeat(201)}/config`)).statusCode, 400, 'longer than PostHog allows')
})

t.test('an unmatched route is a 404 in PostHog shape that still carries CORS headers', async (t) => {
  const { get } = await setup(t)
  const response = await get('/no/such/route', { origin: 'https://shop.example' })
  t.equal(response.statusCode, 404)
  t.match(response.json(), { type: 'invalid_request', code: 'not_found' })
  t.equal(response.headers['access-control-allow-origin'], 'https://shop.example')
  t.equal(response.headers['access-control-allow-credentials'], 'true')
})

t.test('/static/ serves the posthog-js scripts of the installed package, and nothing else', async (t) => {
  const { get } = await setup(t)
  const array = await get('/static/array.js')
  t.equal(array.statusCode, 200)
  t.match(array.headers['content-type'], /^application\/javascript/)
  t.match(String(array.headers['x-posthog-js-version']), /^\d+\.\d+\.\d+/)
  t.ok(array.body.length > 10_000)
  const versioned = await get(`/static/${String(array.headers['x-posthog-js-version'])}/surveys.js`)
  t.equal(versioned.statusCode, 200)
  t.equal((await get('/static/surveys.js?v=1.0.0')).statusCode, 200)
  for (const url of ['/static/missing.js', '/static/array.js.map', '/static/..%2Fpackage.json', '/static/1.0.0/..%2F..%2Fpackage.json']) {
    t.equal((await get(url)).statusCode, 404, url)
  }
})

t.test('/s/ takes recordings an SDK still sends and drops them with a 200', async (t) => {
  const { app } = await setup(t)
  const sent = await app.inject({ method: 'POST', url: '/s/?compression=gzip-js&ip=1', headers: { 'content-type': 'text/plain', origin: 'https://shop.example' }, payload: Buffer.from([0x1f, 0x8b, 0x08, 1, 2, 3]) })
  t.equal(sent.statusCode, 200)
  t.same(sent.json(), { status: 1 })
  t.equal(sent.headers['access-control-allow-origin'], 'https://shop.example')
  const preflight = await app.inject({ method: 'OPTIONS', url: '/s/', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } })
  t.equal(preflight.statusCode, 200)
})
