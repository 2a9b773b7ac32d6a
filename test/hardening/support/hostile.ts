import fc from 'fast-check'
import { gzipSync } from 'node:zlib'

/** A body as a client may send it: bytes, and the headers and query that go with them. */
export interface HostileBody {
  readonly payload: Buffer
  readonly contentType?: string
  readonly contentEncoding?: string
  readonly query?: string
}

const nested = (depth: number, leaf: string): string =>
  depth % 2 === 0 ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`

const CONTENT_TYPES = [
  undefined, 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
  'application/json; charset=utf-16', 'application/octet-stream', '*/*', 'nonsense',
] as const

/** Text that JSON allows but that trips careless code: NUL, lone surrogates, huge numbers, odd keys. */
const awkwardText = fc.constantFrom('\u0000', '\uD800', '\uDFFF', 'a\uD83D', '\u202E', '__proto__', 'constructor', '$set', '1e999', '-0', '%00', '../../etc')

/** A JSON value with the awkward parts mixed in. */
const awkwardJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 3 }),
    awkwardText,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), awkwardText), tie('value'), { maxKeys: 4 }),
  ),
})).value

/**
 * Bodies for any endpoint that takes one: random and malformed JSON, wrong types around the
 * expected shape (`shape` gives realistic field names), huge strings and arrays, deep nesting,
 * invalid UTF-8, lone surrogates and NUL bytes, bad base64, truncated and bomb-like gzip, lz64
 * garbage, odd content types and encodings.
 */
export const hostileBody = (shape: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<HostileBody> => {
  const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value) ?? 'null')
  const typed = fc.record({ contentType: fc.constantFrom(...CONTENT_TYPES) })
  return fc.oneof(
    fc.tuple(shape, typed).map(([value, t]) => ({ payload: json(value), ...t })),
    fc.tuple(shape, fc.dictionary(fc.string({ maxLength: 12 }), awkwardJson, { maxKeys: 5 })).map(([value, extra]) => ({ payload: json({ ...value, ...extra }), contentType: 'application/json' })),
    awkwardJson.map((value) => ({ payload: json(value), contentType: 'application/json' })),
    fc.uint8Array({ maxLength: 600 }).map((bytes) => ({ payload: Buffer.from(bytes), contentType: 'application/json' })),
    fc.string({ maxLength: 300 }).map((text) => ({ payload: Buffer.from(text), contentType: 'application/json' })),
    fc.tuple(fc.integer({ min: 30, max: 3000 }), shape).map(([depth, value]) => ({
      payload: Buffer.from(JSON.stringify(value).replace(/^\{/, `{"deep":${nested(depth, '1')},`)), contentType: 'application/json',
    })),
    fc.tuple(fc.integer({ min: 10_000, max: 300_000 }), shape).map(([size, value]) => ({ payload: json({ ...value, huge: 'x'.repeat(size), list: Array(1000).fill(7) }), contentType: 'application/json' })),
    fc.tuple(shape, fc.nat({ max: 40 })).map(([value, cut]) => ({ payload: gzipSync(json(value)).subarray(0, cut), contentType: 'application/json', contentEncoding: 'gzip' })),
    fc.constantFrom(3, 30).map((mib) => ({ payload: gzipSync(Buffer.alloc(mib * 1024 * 1024, 0x20)), contentType: 'application/json', contentEncoding: 'gzip' })),
    fc.string({ maxLength: 200 }).map((text) => ({ payload: Buffer.from(`data=${encodeURIComponent(text)}`), contentType: 'application/x-www-form-urlencoded' })),
    fc.base64String({ maxLength: 200 }).map((text) => ({ payload: Buffer.from(`data=${text}!!&compression=base64`), contentType: 'application/x-www-form-urlencoded' })),
    fc.string({ maxLength: 200 }).map((text) => ({ payload: Buffer.from(text), contentType: 'text/plain', query: 'compression=lz64' })),
    fc.string({ maxLength: 200 }).map((text) => ({ payload: Buffer.from(text), query: `data=${encodeURIComponent(text)}&compression=gzip-js` })),
  )
}

/** Query strings with wrong types and out-of-range values for the usual list parameters. */
export const hostileQuery: fc.Arbitrary<string> = fc.array(
  fc.tuple(
    fc.constantFrom('limit', 'offset', 'deleted', 'tags', 'search', 'distinct_id', 'event', 'after', 'before', 'as_of', 'key', 'v', 'token', 'id'),
    fc.oneof(
      fc.constantFrom('-1', '0', '1e9', 'abc', '', '%00', '99999999999999999999', 'true', '[]', '{}').map(encodeURIComponent),
      // Percent-escapes that decode to no valid UTF-8 (a lone surrogate, a cut sequence), sent as they are.
      fc.constantFrom('%ED%A0%80', '%E0%A4%A', '%', '%%41'),
      fc.string({ maxLength: 20 }).map(encodeURIComponent),
    ),
  ),
  { maxLength: 4 },
).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'))

/** Ids for path parameters: numbers, nonsense, and values that overflow or escape. */
export const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc.nat({ max: 5 }).map(String),
  fc.constantFrom('-1', 'abc', '1.5', '99999999999999999999', '%00', '@current', '0x10', '%2e%2e', 'null'),
  fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent),
)
