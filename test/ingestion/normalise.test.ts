import t from 'tap'
import { normaliseEvent, type RequestContext } from '../../src/ingestion/normalise.js'
import { readCaptureRequest, withoutPerformanceEvents } from '../../src/ingestion/payload.js'
import { CaptureError } from '../../src/http/capture-error.js'

const NOW = Date.parse('2023-01-01T12:00:00Z')
const context: RequestContext = { now: NOW, nowIso: new Date(NOW).toISOString(), sentAt: null, sentAtIso: null, ip: '203.0.113.9' }
const accepted = (raw: Record<string, unknown>) => {
  const result = normaliseEvent(raw, context)
  if (!result.ok) throw new Error(`dropped: ${result.drop}`)
  return result.event
}

t.test('an event becomes the captured record with its envelope', async (t) => {
  const uuid = '0189a4c2-3b1e-7c3d-9a4f-1234567890ab'
  t.same(accepted({ event: 'signed up', distinct_id: 'u1', uuid, properties: { plan: 'pro' }, $set: { a: 1 }, $set_once: { b: 2 }, timestamp: '2023-01-01T11:00:00Z' }), {
    uuid, event: 'signed up', distinct_id: 'u1', timestamp: '2023-01-01T11:00:00.000Z', properties: { plan: 'pro' },
    set: { a: 1 }, set_once: { b: 2 }, ip: '203.0.113.9', now: '2023-01-01T12:00:00.000Z', sent_at: null,
  })
})

t.test('a missing, empty or unnamed event is dropped with its reason', async (t) => {
  t.same(normaliseEvent({ distinct_id: 'u' }, context), { ok: false, drop: 'missing_event_name' })
  t.same(normaliseEvent({ event: '', distinct_id: 'u' }, context), { ok: false, drop: 'missing_event_name' })
  t.same(normaliseEvent({ event: 'e' }, context), { ok: false, drop: 'missing_distinct_id' })
  t.same(normaliseEvent({ event: 'e', distinct_id: null }, context), { ok: false, drop: 'missing_distinct_id' })
  t.same(normaliseEvent({ event: 'e', distinct_id: '' }, context), { ok: false, drop: 'empty_distinct_id' })
})

t.test('distinct ids are found, stringified, sanitised and truncated as PostHog does', async (t) => {
  t.equal(accepted({ event: 'e', $distinct_id: 'alias' }).distinct_id, 'alias')
  t.equal(accepted({ event: 'e', properties: { distinct_id: 'inside' } }).distinct_id, 'inside')
  t.equal(accepted({ event: 'e', distinct_id: 23, properties: { distinct_id: 'inside' } }).distinct_id, '23', 'the top level wins')
  t.equal(accepted({ event: 'e', distinct_id: 23.4 }).distinct_id, '23.4')
  t.equal(accepted({ event: 'e', distinct_id: true }).distinct_id, 'true')
  t.equal(accepted({ event: 'e', distinct_id: ['a', 'b'] }).distinct_id, '["a","b"]')
  t.equal(accepted({ event: 'e', distinct_id: { string: 'a', number: 3 } }).distinct_id, '{"number":3,"string":"a"}')
  t.equal(accepted({ event: 'e', distinct_id: 'a\0b' }).distinct_id, 'a\uFFFDb')
  t.equal(accepted({ event: 'e', distinct_id: 'x'.repeat(222) }).distinct_id, 'x'.repeat(200))
  t.equal(accepted({ event: 'e', distinct_id: '😀'.repeat(201) }).distinct_id, '😀'.repeat(200), 'characters, not UTF-16 units')
})

t.test('a client uuid is kept; a missing or invalid one is replaced by a UUIDv7 of the receive time', async (t) => {
  t.equal(accepted({ event: 'e', distinct_id: 'u', uuid: '550E8400-E29B-41D4-A716-446655440000' }).uuid, '550E8400-E29B-41D4-A716-446655440000')
  for (const uuid of [undefined, '', 'not-a-uuid', 42]) {
    const generated = accepted({ event: 'e', distinct_id: 'u', uuid }).uuid
    t.match(generated, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, `for ${String(uuid)}`)
    t.equal(parseInt(generated.replace(/-/g, '').slice(0, 12), 16), NOW, 'its time is the receive time')
  }
})

t.test('$set and $set_once are kept apart from properties, and only when they are objects', async (t) => {
  const event = accepted({ event: 'e', distinct_id: 'u', $set: 'nope', properties: { $set: { c: 3 } } })
  t.equal(event.set, null)
  t.equal(event.set_once, null)
  t.same(event.properties, { $set: { c: 3 } })
})

t.test('capture_internal events are recorded from the local address', async (t) => {
  t.equal(accepted({ event: 'e', distinct_id: 'u', properties: { capture_internal: true } }).ip, '127.0.0.1')
})

t.test('properties that are not an object refuse the request', async (t) => {
  t.throws(() => normaliseEvent({ event: 'e', distinct_id: 'u', properties: [1] }, context), CaptureError)
})

t.test('payload shapes: array, batch, single, engage; empty refused; $performance_event removed', async (t) => {
  t.equal(readCaptureRequest([{ event: 'a' }, { event: 'b' }]).shape, 'array')
  const batch = readCaptureRequest({ api_key: 'k', historical_migration: true, sent_at: 's', batch: [{ event: 'a' }] })
  t.match(batch, { shape: 'batch', batchToken: 'k', historicalMigration: true, sentAt: 's' })
  t.equal(readCaptureRequest({ event: 'a' }).shape, 'single')
  t.equal(readCaptureRequest({ distinct_id: 'u', $set: {} }, { engage: true }).events[0]!['event'], '$identify')
  t.equal(readCaptureRequest({ distinct_id: 'u' }).events[0]!['event'], undefined, 'only /engage names it')
  t.throws(() => readCaptureRequest([]), { code: 'empty_batch', status: 400 })
  t.throws(() => readCaptureRequest({ api_key: 'k', batch: [] }), { code: 'empty_batch' })
  t.throws(() => readCaptureRequest('text'), { code: 'request_parsing_error' })
  t.throws(() => readCaptureRequest([1, 2]), { code: 'request_parsing_error' })
  t.same(withoutPerformanceEvents([{ event: '$performance_event' }, { event: 'a' }]), [{ event: 'a' }])
})
