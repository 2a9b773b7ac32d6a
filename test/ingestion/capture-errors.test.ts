import t from 'tap'
import { gzipSync } from 'node:zlib'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { world } from '../support/world.js'
import { ingestWorld } from './support/ingest-world.js'
import { capturedEvents, capturedRecords } from './support/log.js'

t.test('refusals have PostHog capture status and body, and store nothing', async (t) => {
  const { app, log, installation } = await world(t)
  const cases: [string, unknown, number, Record<string, unknown>][] = [
    ['no token', { event: 'e', distinct_id: 'u' }, 401, { status: 401, code: 'ingest_key_required', error: 'event submitted without an api_key' }],
    ['unknown token', { api_key: 'phc_unknown', event: 'e', distinct_id: 'u' }, 403, { status: 403, code: 'ingest_key_unknown', error: 'api_key does not resolve to a known project' }],
    ['personal key', { api_key: 'phx_secret', event: 'e', distinct_id: 'u' }, 403, { status: 403, code: 'ingest_key_unknown', error: 'API key is not valid: personal_api_key' }],
    ['two tokens', [{ event: 'e', token: installation.project_api_key }, { event: 'e', token: 'phc_other' }], 400, { status: 400, code: 'unroutable_events' }],
    ['empty batch', { api_key: installation.project_api_key, batch: [] }, 400, { status: 400, code: 'empty_batch', error: 'request holds no event' }],
    ['not JSON', 'this is not json', 400, { status: 400, code: 'request_parsing_error', error: /^failed to parse request: / }],
    ['a JSON string', '"text"', 400, { status: 400, code: 'request_parsing_error' }],
    ['properties not an object', { api_key: installation.project_api_key, event: 'e', distinct_id: 'u', properties: 'x' }, 400, { status: 400, code: 'request_parsing_error' }],
  ]
  for (const [name, payload, status, body] of cases) {
    const response = await app.inject({ method: 'POST', url: '/batch/', headers: { 'content-type': 'application/json' }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) })
    t.equal(response.statusCode, status, name)
    t.match(response.json(), body, name)
  }
  const empty = await app.inject({ method: 'POST', url: '/capture/' })
  t.same([empty.statusCode, empty.json()], [400, { status: 400, code: 'empty_payload', error: 'request missing data payload' }])
  const badGzip = await app.inject({ method: 'POST', url: '/capture/', headers: { 'content-encoding': 'gzip' }, payload: Buffer.from([0x1f, 0x8b, 0x08, 1, 2]) })
  t.same([badGzip.statusCode, badGzip.json()], [400, { status: 400, code: 'request_decoding_error', error: 'failed to decode request: invalid gzip data' }])
  t.same(await capturedRecords(log), [])
})

t.test('a body over 20 MiB is refused with 413, and so is a gzip bomb', async (t) => {
  const { app, log, installation } = await world(t)
  const api_key = installation.project_api_key
  const big = JSON.stringify({ api_key, batch: [{ event: 'e', distinct_id: 'u', properties: { pad: 'x'.repeat(21 * 1024 * 1024) } }] })
  const response = await app.inject({ method: 'POST', url: '/batch/', headers: { 'content-type': 'application/json' }, payload: big })
  t.equal(response.statusCode, 413)
  t.match(response.json(), { status: 413, code: 'payload_too_large', error: /^maximum event size exceeded/ })
  const small = await app.inject({ method: 'POST', url: '/capture/', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ api_key, event: 'e', distinct_id: 'u', properties: { pad: 'x'.repeat(3 * 1024 * 1024) } }) })
  t.equal(small.statusCode, 413, '/capture/ takes 2 MiB, as PostHog')
  const bomb = gzipSync(Buffer.concat([Buffer.from(`{"api_key":"${api_key}","batch":[{"event":"e","distinct_id":"u","properties":{"pad":"`), Buffer.alloc(100 * 1024 * 1024, 0x61), Buffer.from('"}}]}')]))
  const bombed = await app.inject({ method: 'POST', url: '/batch/', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, payload: bomb })
  t.equal(bombed.statusCode, 413)
  t.equal(bombed.json().code, 'payload_too_large')
  t.same(await capturedRecords(log), [])
})

t.test('a large realtime batch is split into appends within the log limit and all of it is stored', async (t) => {
  const { app, log, installation } = await world(t)
  const batch = Array.from({ length: 6000 }, (_, i) => ({ event: 'e', distinct_id: `u${i}`, properties: { i, pad: 'p'.repeat(400) } }))
  const response = await app.inject({ method: 'POST', url: '/batch/', payload: { api_key: installation.project_api_key, batch } })
  t.equal(response.statusCode, 200)
  const records = await capturedRecords(log)
  t.ok(records.length > 4, `${records.length} log events`)
  t.ok(new Set(records.map((r) => r.streamId)).size > 1, 'over several streams')
  t.same((await capturedEvents(log)).map((e) => e.properties['i']), batch.map((_, i) => i), 'every event, in order')
})

t.test('the token of an environment created a moment ago works at once', async (t) => {
  const log = new SqliteEventLog({ path: ':memory:' })
  const store = new SqliteReadStore({ path: ':memory:' })
  t.teardown(async () => { await log.close(); await store.close() })
  // The installation is written just before the request; the environments projection may not have seen it yet.
  const { app, installation } = await ingestWorld(t, log, store, [])
  const response = await app.inject({ method: 'POST', url: '/capture/', payload: { api_key: installation.project_api_key, event: 'first', distinct_id: 'u' } })
  t.equal(response.statusCode, 200)
  const [record] = await capturedRecords(log)
  t.equal(record!.data['environmentId'], installation.environment_id)
})

t.test('the recordings endpoint refuses a body that disagrees with its Content-Length in capture\'s shape, as the other capture paths do', async (t) => {
  const { app } = await world(t)
  for (const url of ['/s/', '/capture/']) {
    const response = await app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', 'content-length': '0' }, payload: ' ' })
    t.same([response.statusCode, response.json()], [400, { status: 400, code: 'request_decoding_error', error: 'failed to decode request: Request body size did not match Content-Length' }], url)
  }
})
