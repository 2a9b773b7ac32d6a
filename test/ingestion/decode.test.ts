import t from 'tap'
import LZString from 'lz-string'
import { gzipSync } from 'node:zlib'
import { decodeIngestBody, decodeIngestText } from '../../src/ingestion/decode.js'
import { lz64DecodedLength } from '../../src/ingestion/lz64.js'

const EVENT = { api_key: 'phc_x', event: 'clicked', distinct_id: 'u1', properties: { label: 'ok+/=?' } }
const JSON_TEXT = JSON.stringify(EVENT)
const json = (body: Buffer | string, headers: Record<string, string> = {}, query: Record<string, string> = {}) =>
  decodeIngestBody({ body: typeof body === 'string' ? Buffer.from(body) : body, headers, query })

t.test('plain JSON, whatever the content type says', async (t) => {
  t.same(await json(JSON_TEXT, { 'content-type': 'application/json' }), EVENT)
  t.same(await json(JSON_TEXT, { 'content-type': 'text/plain' }), EVENT)
  t.same(await json(JSON_TEXT), EVENT)
  t.same(await json(`[${JSON_TEXT}]`), [EVENT])
})

t.test('gzip by Content-Encoding, by compression=gzip-js, or by its magic bytes alone', async (t) => {
  const gz = gzipSync(JSON_TEXT)
  t.same(await json(gz, { 'content-encoding': 'gzip' }), EVENT)
  t.same(await json(gz, { 'content-type': 'text/plain' }, { compression: 'gzip-js' }), EVENT)
  t.same(await json(gz), EVENT)
})

t.test('lz64 by compression=lz64, in the body or in a form', async (t) => {
  const lz = LZString.compressToBase64(JSON_TEXT)
  t.same(await json(lz, { 'content-type': 'text/plain' }, { compression: 'lz64' }), EVENT)
  const form = `data=${encodeURIComponent(lz)}&compression=lz64`
  t.same(await json(form, { 'content-type': 'application/x-www-form-urlencoded' }), EVENT)
  const unescaped = `data=${lz}&compression=lz-string`
  t.same(await json(unescaped, { 'content-type': 'application/x-www-form-urlencoded' }), EVENT, "'+' turned into spaces is repaired")
})

t.test('base64 form data, standard or URL-safe, and a whole base64 body', async (t) => {
  const b64 = Buffer.from(JSON_TEXT).toString('base64')
  const form = { 'content-type': 'application/x-www-form-urlencoded' }
  t.same(await json(`data=${encodeURIComponent(b64)}&ver=1.2.3`, form), EVENT)
  t.same(await json(`ver=1.2.3&data=${b64}`, form), EVENT, 'unescaped, + read as spaces')
  t.same(await json(`data=${Buffer.from(JSON_TEXT).toString('base64url')}`, form), EVENT, 'URL-safe without padding')
  t.same(await json(`data=${encodeURIComponent(JSON_TEXT)}`, form), EVENT, 'plain JSON in the form')
  t.same(await json(b64, { 'content-type': 'text/plain' }), EVENT, 'a whole body in base64')
  t.same(await json(Buffer.from(gzipSync(JSON_TEXT)).toString('base64')), EVENT, 'base64 of gzip')
})

t.test('a GET carries the payload in the data query parameter', async (t) => {
  const b64 = Buffer.from(JSON_TEXT).toString('base64').replace(/\+/g, ' ')
  t.same(await decodeIngestBody({ headers: {}, query: { data: b64 } }), EVENT)
  t.same(await decodeIngestBody({ headers: {}, query: { data: JSON_TEXT } }), EVENT)
})

t.test('a body another parser already read is used as it is', async (t) => {
  t.same(await decodeIngestBody({ body: EVENT, headers: {} }), EVENT)
})

t.test('bad input is refused with PostHog codes', async (t) => {
  await t.rejects(json(''), { status: 400, code: 'empty_payload', message: 'request missing data payload' })
  await t.rejects(json('{"event":'), { status: 400, code: 'request_parsing_error', message: /^failed to parse request: / })
  await t.rejects(json(Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2, 3])), { status: 400, code: 'request_decoding_error', message: 'failed to decode request: invalid gzip data' })
  await t.rejects(json('not lz', {}, { compression: 'lz64' }), { status: 400, code: 'request_decoding_error', message: 'failed to decode request: invalid lz64 data' })
  await t.rejects(json(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), { status: 400, code: 'request_decoding_error', message: 'failed to decode request: invalid body encoding' })
  await t.rejects(json(JSON_TEXT, { 'content-type': 'application/x-www-form-urlencoded' }),
    { status: 400, code: 'request_decoding_error', message: 'failed to decode request: expected form data in POST request payload' })
})

t.test('decompression stops at the limit: a gzip bomb is refused without inflating it', async (t) => {
  const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20))
  t.ok(bomb.length < 300 * 1024, `the bomb is ${bomb.length} bytes on the wire`)
  const before = process.memoryUsage().rss
  await t.rejects(json(bomb, { 'content-encoding': 'gzip' }), { status: 413, code: 'payload_too_large' })
  t.ok(process.memoryUsage().rss - before < 120 * 1024 * 1024, 'memory grew by far less than the inflated size')
  await t.rejects(decodeIngestText({ body: gzipSync(JSON_TEXT), headers: {} }, { maxDecodedBytes: 10 }), { status: 413, code: 'payload_too_large' })
  await t.rejects(decodeIngestText({ body: Buffer.from(JSON_TEXT), headers: {} }, { maxDecodedBytes: 10 }), { status: 413, code: 'payload_too_large' }, 'uncompressed too')
})

t.test('an lz64 bomb is measured without building it, and refused', async (t) => {
  const lz = LZString.compressToBase64('a'.repeat(300_000))
  t.ok(lz.length < 1_500, `the bomb is ${lz.length} characters`)
  t.equal(lz64DecodedLength(lz, 100_000), Infinity, 'the walk stops past the limit')
  await t.rejects(decodeIngestText({ body: Buffer.from(lz), headers: {}, query: { compression: 'lz64' } }, { maxDecodedBytes: 100_000 }),
    { status: 413, code: 'payload_too_large' })
})

t.test('the lz64 length walk agrees with lz-string on every input', async (t) => {
  const samples = ['a', 'ab', 'aaaaaaaaaaaaaaaaaaaaaaa', JSON_TEXT, JSON_TEXT.repeat(50), '😀 é ü 漢字'.repeat(20)]
  let seed = 7
  for (let i = 0; i < 200; i++) {
    let text = ''
    const length = (seed = (seed * 48271) % 2147483647) % 400
    for (let j = 0; j < length; j++) text += String.fromCharCode(32 + ((seed = (seed * 48271) % 2147483647) % (i % 2 ? 4 : 300)))
    samples.push(text)
  }
  for (const text of samples) {
    const encoded = LZString.compressToBase64(text)
    if (text === '') continue
    t.equal(lz64DecodedLength(encoded, Infinity), LZString.decompressFromBase64(encoded)!.length)
  }
  t.equal(lz64DecodedLength(LZString.compressToBase64(JSON_TEXT).slice(0, 10), Infinity), null, 'truncated input fails as lz-string does')
})

t.test('a corrupt lz64 stream that makes lz-string throw is a decoding error', async (t) => {
  await t.rejects(decodeIngestText({ body: Buffer.from('y  Q'), headers: { 'content-type': 'text/plain' }, query: { compression: 'lz64' } }), { code: 'request_decoding_error' })
})
