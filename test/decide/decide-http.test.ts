import t from 'tap'
import { gzipSync } from 'node:zlib'
import { decideWorld } from './support/decide-world.js'

const rollout = (percentage: number) => ({ groups: [{ properties: [], rollout_percentage: percentage }] })

t.test('decide v3 answers with PostHog\'s shape: every flag, payloads, config', async (t) => {
  const w = await decideWorld(t)
  await w.createFlag('everyone', rollout(100), { filters: { ...rollout(100), payloads: { true: '{"a":1}' } } })
  await w.createFlag('nobody', rollout(0))
  await w.createFlag('switched-off', rollout(100), { active: false })
  const { status, body } = await w.decide({ distinct_id: 'user-1' })
  t.equal(status, 200)
  t.same(body.featureFlags, { everyone: true, nobody: false })
  t.same(body.featureFlagPayloads, { everyone: '{"a":1}' })
  t.equal(body.errorsWhileComputingFlags, false)
  t.match(body, { config: { enable_collect_everything: true }, toolbarParams: {}, isAuthenticated: false })
  t.ok(body.supportedCompression.includes('gzip') && body.supportedCompression.includes('lz64'))
})

t.test('other versions: v1 lists enabled keys, v2 maps enabled flags, v4 and /flags v2 are detailed', async (t) => {
  const w = await decideWorld(t)
  await w.createFlag('on', rollout(100))
  await w.createFlag('off', rollout(0))
  t.same((await w.decide({ distinct_id: 'u' }, '/decide/')).body.featureFlags, ['on'])
  t.same((await w.decide({ distinct_id: 'u' }, '/decide/?v=2')).body.featureFlags, { on: true })
  const v4 = (await w.decide({ distinct_id: 'u' }, '/decide/?v=4')).body
  t.match(v4.flags.on, { key: 'on', enabled: true, reason: { code: String } })
  t.match(v4.flags.off, { key: 'off', enabled: false })
  const flags = (await w.decide({ distinct_id: 'u' }, '/flags/?v=2')).body
  t.match(flags.flags.on, { enabled: true })
  t.notOk('config' in flags, '/flags v2 leaves the configuration out unless asked')
})

t.test('refusals: no token, unknown token, no distinct_id, malformed body', async (t) => {
  const w = await decideWorld(t)
  const none = await w.app.inject({ method: 'POST', url: '/decide/?v=3', payload: { distinct_id: 'u' } })
  t.equal(none.statusCode, 401)
  t.same(none.json(), { type: 'authentication_error', code: 'no_api_key', detail: 'No project API key provided. You can find your project API key in PostHog project settings.', attr: null })
  const bad = await w.app.inject({ method: 'POST', url: '/decide/?v=3', payload: { token: 'phc_nope', distinct_id: 'u' } })
  t.equal(bad.statusCode, 401)
  t.equal(bad.json().code, 'invalid_api_key')
  const anonymous = await w.decide({})
  t.equal(anonymous.status, 400)
  t.same(anonymous.body, { type: 'validation_error', code: 'missing_distinct_id', detail: 'Decide requires a distinct_id.', attr: null })
  const garbage = await w.app.inject({ method: 'POST', url: '/decide/?v=3', payload: '{"token": ', headers: { 'content-type': 'application/json' } })
  t.equal(garbage.statusCode, 400)
  t.equal(garbage.json().code, 'malformed_data')
  const disabled = await w.decide({ disable_flags: true })
  t.equal(disabled.status, 200, 'with flags disabled no distinct_id is needed')
  t.same(disabled.body.featureFlags, {})
})

t.test('bodies in every encoding capture accepts: base64 form data and gzip', async (t) => {
  const w = await decideWorld(t)
  await w.createFlag('on', rollout(100))
  const json = JSON.stringify({ token: w.token, distinct_id: 'u' })
  const form = await w.app.inject({
    method: 'POST', url: '/decide/?v=3', payload: `data=${encodeURIComponent(Buffer.from(json).toString('base64'))}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  t.same(form.json().featureFlags, { on: true })
  const gzip = await w.app.inject({
    method: 'POST', url: '/decide/?v=3&compression=gzip-js', payload: gzipSync(json), headers: { 'content-type': 'text/plain' },
  })
  t.same(gzip.json().featureFlags, { on: true })
})

t.test('person properties from ingestion change the answer; request properties override them', async (t) => {
  const w = await decideWorld(t)
  await w.createFlag('pro-only', { groups: [{ properties: [{ key: 'plan', type: 'person', operator: 'exact', value: 'pro' }], rollout_percentage: 100 }] })
  t.same((await w.decide({ distinct_id: 'customer' })).body.featureFlags, { 'pro-only': false })
  const captured = await w.app.inject({
    method: 'POST', url: '/capture/', payload: { api_key: w.token, event: '$identify', distinct_id: 'customer', properties: { $set: { plan: 'pro' } } },
  })
  t.equal(captured.statusCode, 200)
  let value: unknown = false
  for (let i = 0; i < 100 && value !== true; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    value = (await w.decide({ distinct_id: 'customer' })).body.featureFlags['pro-only']
  }
  t.equal(value, true, 'the stored property turned the flag on')
  t.same((await w.decide({ distinct_id: 'customer', person_properties: { plan: 'free' } })).body.featureFlags, { 'pro-only': false }, 'the request overrides')
})

t.test('group flags read stored group properties, overridden by the request', async (t) => {
  const w = await decideWorld(t)
  await w.app.inject({
    method: 'POST', url: '/capture/',
    payload: { api_key: w.token, event: '$groupidentify', distinct_id: 'admin', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { tier: 'gold' } } },
  })
  for (let i = 0; i < 100; i++) {
    const groups = await w.api.get(`/api/environments/${w.installation.environment_id}/groups/?group_type_index=0&group_key=acme`)
    if (groups.status === 200 && JSON.stringify(groups.body).includes('gold')) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await w.createFlag('gold-companies', {
    aggregation_group_type_index: 0,
    groups: [{ properties: [{ key: 'tier', type: 'group', group_type_index: 0, operator: 'exact', value: 'gold' }], rollout_percentage: 100 }],
  })
  t.same((await w.decide({ distinct_id: 'someone', groups: { company: 'acme' } })).body.featureFlags, { 'gold-companies': true })
  t.same((await w.decide({ distinct_id: 'someone', groups: { company: 'acme' }, group_properties: { company: { tier: 'bronze' } } })).body.featureFlags, { 'gold-companies': false })
  t.same((await w.decide({ distinct_id: 'someone' })).body.featureFlags, { 'gold-companies': false }, 'no group, no match')
})

t.test('GeoIP properties come from X-Forwarded-For unless geoip_disable is set', async (t) => {
  const w = await decideWorld(t)
  await w.createFlag('in-us', { groups: [{ properties: [{ key: '$geoip_country_code', type: 'person', operator: 'exact', value: 'US' }], rollout_percentage: 100 }] })
  const forwarded = { 'x-forwarded-for': '8.8.8.8, 10.0.0.1' }
  t.same((await w.decide({ distinct_id: 'u' }, '/decide/?v=3', forwarded)).body.featureFlags, { 'in-us': true })
  t.same((await w.decide({ distinct_id: 'u', geoip_disable: true }, '/decide/?v=3', forwarded)).body.featureFlags, { 'in-us': false })
  t.same((await w.decide({ distinct_id: 'u' })).body.featureFlags, { 'in-us': false }, 'the loopback caller has no location')
  t.same((await w.decide({ distinct_id: 'u', person_properties: { $geoip_country_code: 'DE' } }, '/decide/?v=3', forwarded)).body.featureFlags, { 'in-us': false }, 'request properties win over GeoIP')
})

t.test('CORS lets a browser page ask decide', async (t) => {
  const w = await decideWorld(t)
  const preflight = await w.app.inject({ method: 'OPTIONS', url: '/decide/?v=3', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } })
  t.equal(preflight.statusCode, 200)
  t.equal(preflight.headers['access-control-allow-origin'], 'https://shop.example')
})
