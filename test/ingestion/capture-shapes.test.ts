import t from 'tap'
import LZString from 'lz-string'
import { gzipSync } from 'node:zlib'
import { world } from '../support/world.js'
import { capturedEvents, capturedRecords } from './support/log.js'

const uuid = '0189a4c2-3b1e-7c3d-9a4f-1234567890ab'

t.test('a single event on /capture/ is stored once the 200 is sent', async (t) => {
  const { app, log, installation } = await world(t)
  const response = await app.inject({
    method: 'POST', url: '/capture/',
    payload: { api_key: installation.project_api_key, event: 'signed up', distinct_id: 'u1', uuid, properties: { plan: 'pro' }, timestamp: '2023-01-01T11:00:00Z' },
  })
  t.equal(response.statusCode, 200)
  t.same(response.json(), { status: 1 })
  const records = await capturedRecords(log)
  t.equal(records.length, 1)
  t.match(records[0]!.streamId, new RegExp(`^ingest-${installation.environment_id}-`))
  t.same(records[0]!.data['environmentId'], installation.environment_id)
  t.match(records[0]!.metadata, { actor: installation.project_api_key, schemaVersion: 1 })
  const [event] = await capturedEvents(log)
  t.match(event, { uuid, event: 'signed up', distinct_id: 'u1', properties: { plan: 'pro' }, timestamp: '2023-01-01T11:00:00.000Z', ip: '127.0.0.1', sent_at: null })
})

t.test('a batch as posthog-node sends it, with the distinct id in properties and sent_at', async (t) => {
  const { app, log, installation } = await world(t)
  const response = await app.inject({
    method: 'POST', url: '/batch/',
    payload: {
      api_key: installation.project_api_key, sent_at: new Date(Date.now() + 10_000).toISOString(),
      batch: [
        { event: 'a', properties: { distinct_id: 'd1' }, timestamp: new Date(Date.now() + 5_000).toISOString() },
        { event: 'b', distinct_id: 'd2', $set: { email: 'x@y.z' } },
      ],
    },
  })
  t.equal(response.statusCode, 200)
  const events = await capturedEvents(log)
  t.same(events.map((e) => [e.event, e.distinct_id]), [['a', 'd1'], ['b', 'd2']])
  t.same(events[1]!.set, { email: 'x@y.z' })
  const skewed = Date.parse(events[0]!.timestamp) - Date.parse(events[0]!.now)
  t.ok(Math.abs(skewed + 5_000) < 50, `the 10 s clock skew is removed (${skewed} ms from receipt)`)
  t.equal(new Set((await capturedRecords(log)).map((r) => r.streamId)).size, 1, 'one request, one stream')
})

t.test('a bare array with the token in properties, as posthog-js sends it to /e/', async (t) => {
  const { app, log, installation } = await world(t)
  const token = installation.project_api_key
  const response = await app.inject({
    method: 'POST', url: '/e/?ip=1&_=1700000000000&ver=1.200.0', headers: { 'content-type': 'text/plain' },
    payload: JSON.stringify([{ event: '$pageview', properties: { token, distinct_id: 'anon', $current_url: 'https://a.b/' } }, { event: '$autocapture', properties: { token, distinct_id: 'anon' } }]),
  })
  t.equal(response.statusCode, 200)
  const events = await capturedEvents(log)
  t.same(events.map((e) => e.event), ['$pageview', '$autocapture'])
  t.equal(events[0]!.sent_at, new Date(1700000000000).toISOString(), 'sent_at from the _ parameter')
})

t.test('gzip by header and by query, lz64, and base64 form data all arrive', async (t) => {
  const { app, log, installation } = await world(t)
  const token = installation.project_api_key
  const body = (name: string) => JSON.stringify([{ event: name, properties: { token, distinct_id: 'u' } }])
  const requests = [
    { url: '/batch/', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: gzipSync(JSON.stringify({ api_key: token, batch: [{ event: 'gzip-header', distinct_id: 'u' }] })) },
    { url: '/e/?compression=gzip-js', headers: { 'content-type': 'text/plain' }, payload: gzipSync(body('gzip-query')) },
    { url: '/e/', headers: { 'content-type': 'text/plain' }, payload: gzipSync(body('gzip-magic')) },
    { url: '/e/?compression=lz64', headers: { 'content-type': 'text/plain' }, payload: LZString.compressToBase64(body('lz64')) },
    { url: '/e/', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `data=${encodeURIComponent(LZString.compressToBase64(body('lz64-form')))}&compression=lz64` },
    { url: '/e/', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `data=${encodeURIComponent(Buffer.from(body('base64-form')).toString('base64'))}` },
    { url: '/e/', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `data=${Buffer.from(body('base64url-form')).toString('base64url')}` },
    { url: '/capture/', headers: { 'content-type': 'text/plain' }, payload: JSON.stringify({ event: 'text-plain', distinct_id: 'u', token }) },
  ]
  for (const request of requests) {
    const response = await app.inject({ method: 'POST', ...request })
    t.equal(response.statusCode, 200, `${request.url} ${response.body}`)
  }
  const get = await app.inject({ method: 'GET', url: `/e/?data=${encodeURIComponent(Buffer.from(body('get')).toString('base64'))}` })
  t.equal(get.statusCode, 200)
  t.same((await capturedEvents(log)).map((e) => e.event),
    ['gzip-header', 'gzip-query', 'gzip-magic', 'lz64', 'lz64-form', 'base64-form', 'base64url-form', 'text-plain', 'get'])
})

t.test('every alias of capture is served, /engage turns a person update into $identify', async (t) => {
  const { app, log, installation } = await world(t)
  const token = installation.project_api_key
  for (const path of ['/e', '/e/', '/i/v0/e/', '/capture', '/track/', '/batch']) {
    const response = await app.inject({ method: 'POST', url: path, payload: { token, event: `via ${path}`, distinct_id: 'u' } })
    t.equal(response.statusCode, 200, path)
  }
  t.equal((await app.inject({ method: 'POST', url: '/engage/', payload: { token, distinct_id: 'u', $set: { name: 'N' } } })).statusCode, 200)
  const events = await capturedEvents(log)
  t.equal(events.length, 7)
  t.match(events.at(-1), { event: '$identify', distinct_id: 'u', set: { name: 'N' } })
})

t.test('drops answer 200 and store nothing', async (t) => {
  const { app, log, installation } = await world(t)
  const api_key = installation.project_api_key
  const dropped = [
    { api_key, distinct_id: 'u' },
    { api_key, event: '', distinct_id: 'u' },
    { api_key, event: 'no id' },
    { api_key, event: 'empty id', distinct_id: '' },
    { api_key, event: 'null id', distinct_id: null },
    { api_key, batch: [{ event: 'x' }, { properties: { distinct_id: 'y' } }] },
    [{ event: '$performance_event', properties: { token: api_key, distinct_id: 'u' } }],
  ]
  for (const payload of dropped) {
    const response = await app.inject({ method: 'POST', url: '/batch/', payload })
    t.equal(response.statusCode, 200, JSON.stringify(payload))
    t.same(response.json(), { status: 1 })
  }
  t.same(await capturedRecords(log), [], 'nothing was appended')
  await app.inject({ method: 'POST', url: '/batch/', payload: { api_key, batch: [{ event: 'kept', distinct_id: 'u' }, { event: 'dropped' }] } })
  t.same((await capturedEvents(log)).map((e) => e.event), ['kept'], 'a batch keeps what it can')
})

t.test('uuids are kept when valid and generated otherwise; ip is the leftmost X-Forwarded-For', async (t) => {
  const { app, log, installation } = await world(t)
  await app.inject({
    method: 'POST', url: '/batch/', headers: { 'x-forwarded-for': '198.51.100.7, 10.0.0.1' },
    payload: { api_key: installation.project_api_key, batch: [{ event: 'a', distinct_id: 'u', uuid }, { event: 'b', distinct_id: 'u', uuid: 'nope' }] },
  })
  const [kept, generated] = await capturedEvents(log)
  t.equal(kept!.uuid, uuid)
  t.match(generated!.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-7/)
  t.equal(kept!.ip, '198.51.100.7')
})

t.test('a client retry of the same body is stored once; bodies without uuids are stored each time', async (t) => {
  const { app, log, installation } = await world(t)
  const payload = { api_key: installation.project_api_key, batch: [{ event: 'a', distinct_id: 'u', uuid }] }
  for (let i = 0; i < 2; i++) t.equal((await app.inject({ method: 'POST', url: '/batch/', payload })).statusCode, 200)
  t.equal((await capturedEvents(log)).length, 1)
  const anonymous = { api_key: installation.project_api_key, event: 'ping', distinct_id: 'u' }
  for (let i = 0; i < 2; i++) await app.inject({ method: 'POST', url: '/capture/', payload: anonymous })
  t.equal((await capturedEvents(log)).length, 3)
})

t.test('a retried body is recognised when only its dropped performance events lack a uuid', async (t) => {
  const { app, log, installation } = await world(t)
  const payload = { api_key: installation.project_api_key, batch: [{ event: 'a', distinct_id: 'u', uuid }, { event: '$performance_event', distinct_id: 'u' }] }
  for (let i = 0; i < 2; i++) t.equal((await app.inject({ method: 'POST', url: '/batch/', payload })).statusCode, 200)
  t.same((await capturedEvents(log)).map((event) => event.uuid), [uuid])
})

t.test('beacon requests get 204', async (t) => {
  const { app, log, installation } = await world(t)
  const response = await app.inject({ method: 'POST', url: '/e/?beacon=1', payload: [{ event: 'left', properties: { token: installation.project_api_key, distinct_id: 'u' } }] })
  t.equal(response.statusCode, 204)
  t.equal(response.body, '')
  t.equal((await capturedEvents(log)).length, 1)
})
