import t from 'tap'
import { event } from '../projections/support/captured.js'
import { apiWorld } from './support/api.js'

const names = (body: { results: { name: unknown }[] }) => body.results.map((entry) => entry.name)

t.test('the session property definitions are PostHog\'s 37, with search and types', async (t) => {
  const api = await apiWorld(t)
  const response = await api.get('/sessions/property_definitions/')
  t.equal(response.statusCode, 200)
  const body = response.json()
  t.equal(body.count, 37)
  t.same(Object.keys(body), ['count', 'results'])
  t.same(new Set(names(body)), new Set([
    '$autocapture_count', '$channel_type', '$end_timestamp', '$entry_current_url', '$entry_pathname', '$entry_hostname',
    '$end_current_url', '$end_pathname', '$end_hostname', '$entry__kx', '$entry_dclid', '$entry_fbclid', '$entry_gad_source',
    '$entry_gbraid', '$entry_gclid', '$entry_gclsrc', '$entry_igshid', '$entry_irclid', '$entry_li_fat_id', '$entry_mc_cid',
    '$entry_msclkid', '$entry_ttclid', '$entry_twclid', '$entry_wbraid', '$entry_referring_domain', '$entry_utm_campaign',
    '$entry_utm_content', '$entry_utm_medium', '$entry_utm_source', '$entry_utm_term', '$pageview_count', '$screen_count',
    '$session_duration', '$start_timestamp', '$is_bounce', '$last_external_click_url', '$vitals_lcp',
  ]))
  t.same(body.results.find((p: { name: string }) => p.name === '$session_duration'), {
    id: '$session_duration', name: '$session_duration', is_numerical: true, property_type: 'Duration', is_seen_on_filtered_events: null, tags: [],
  })
  t.match(body.results.find((p: { name: string }) => p.name === '$is_bounce'), { is_numerical: false, property_type: 'Boolean' })
})

t.test('searching the definitions matches every word of the search', async (t) => {
  const api = await apiWorld(t)
  t.same(new Set(names((await api.get('/sessions/property_definitions/?search=utm')).json())),
    new Set(['$entry_utm_campaign', '$entry_utm_content', '$entry_utm_medium', '$entry_utm_source', '$entry_utm_term']))
  t.same((await api.get('/sessions/property_definitions/?search=doesnotexist')).json(), { count: 0, results: [] })
  t.same(names((await api.get('/sessions/property_definitions/?search=entry%20UTM%20source')).json()), ['$entry_utm_source'])
  t.same(new Set(names((await api.get('/sessions/property_definitions/?is_numerical=true')).json())),
    new Set(['$pageview_count', '$autocapture_count', '$screen_count', '$vitals_lcp', '$session_duration']))
})

t.test('channel type values are the 18 defaults, filtered by value', async (t) => {
  const api = await apiWorld(t)
  const all = (await api.get('/sessions/values/?key=$channel_type')).json()
  t.same(all.refreshing, false)
  t.same(new Set(names(all)), new Set([
    'Affiliate', 'Audio', 'Cross Network', 'Direct', 'Email', 'Organic Search', 'Organic Shopping', 'Organic Social',
    'Organic Video', 'Unknown', 'Paid Unknown', 'Paid Search', 'Paid Shopping', 'Paid Social', 'Paid Video', 'Push', 'Referral', 'SMS',
  ]))
  t.same(new Set(names((await api.get('/sessions/values/?key=$channel_type&value=paid')).json())),
    new Set(['Paid Unknown', 'Paid Search', 'Paid Shopping', 'Paid Social', 'Paid Video']))
})

t.test('string session values are those seen in sessions, filtered by a substring', async (t) => {
  const api = await apiWorld(t)
  await api.ingest([
    event('$pageview', 'd1', { properties: { $session_id: '01900000-0000-7000-8000-000000000001', utm_source: 'google' } }),
    event('$pageview', 'd1', { properties: { $session_id: '01900000-0000-7000-8000-000000000001', utm_source: 'youtube' } }),
    event('$pageview', 'd2', { properties: { utm_source: 'outside-any-session' } }),
  ])
  t.same(new Set(names((await api.get('/sessions/values/?key=$entry_utm_source')).json())), new Set(['google', 'youtube']))
  t.same(names((await api.get('/sessions/values/?key=$entry_utm_source&value=tub')).json()), ['youtube'])
  t.same((await api.get('/sessions/values/?key=$entry_utm_source&value=doesnotexist')).json(), { results: [], refreshing: false })
})

t.test('URL parts, booleans, numbers and unknown keys', async (t) => {
  const api = await apiWorld(t)
  await api.ingest([event('$pageview', 'd1', { properties: { $session_id: 's', $current_url: 'https://shop.test/cart?x=1' } })])
  t.same(names((await api.get('/sessions/values/?key=$entry_hostname')).json()), ['shop.test'])
  t.same(names((await api.get('/sessions/values/?key=$end_pathname')).json()), ['/cart'])
  t.same(names((await api.get('/sessions/values/?key=$is_bounce')).json()), ['1', '0'])
  t.same(names((await api.get('/sessions/values/?key=$pageview_count')).json()), [])
  t.same(names((await api.get('/sessions/values/?key=$start_timestamp')).json()), [])
  t.same(names((await api.get('/sessions/values/?key=nonsense')).json()), [])
})

t.test('the values helper needs a key', async (t) => {
  const api = await apiWorld(t)
  const response = await api.get('/sessions/values/')
  t.equal(response.statusCode, 400)
  t.same(response.json(), { type: 'validation_error', code: 'invalid_input', detail: 'Key not provided', attr: null })
})

t.test('the session helpers need query:read, under both prefixes', async (t) => {
  const api = await apiWorld(t)
  const narrow = await api.issueKey(['person:read'])
  for (const path of ['/sessions/property_definitions/', '/sessions/values/?key=$channel_type']) {
    t.equal((await api.get(path, api.bearer(narrow.value))).statusCode, 403, path)
    t.equal((await api.app.inject({ method: 'GET', url: `/api/projects/${api.environmentId}${path}` })).statusCode, 401, path)
    t.equal((await api.app.inject({ method: 'GET', url: `/api/environments/${api.environmentId}${path}`, headers: api.headers })).statusCode, 200, path)
  }
  const query = await api.issueKey(['query:read'])
  t.equal((await api.get('/sessions/property_definitions/', api.bearer(query.value))).statusCode, 200)
})
