import fc from 'fast-check'
import { gzipSync } from 'node:zlib'

/** A body as a client may send it: bytes, and the headers and query that go with them. */
export interface HostileBody {
  readonly payload: Buffer
  readonly contentType?: string
  readonly contentEncoding?: string
  readonly query?: string
  /** Further headers, sent after (and so in place of) the ones above. */
  readonly headers?: Readonly<Record<string, string | string[]>>
}

const nested = (depth: number, leaf: string): string =>
  depth % 2 === 0 ? `${'['.repeat(depth)}${leaf}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`

const CONTENT_TYPES = [
  undefined, 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
  'application/json; charset=utf-16', 'application/octet-stream', '*/*', 'nonsense',
  'APPLICATION/JSON; CHARSET=UTF-8', 'application/json;charset="utf-8"', 'application/json; charset=latin1', 'application/json; charset=nonsense',
  'text/plain; charset=utf-16le', 'application/json; boundary=x; charset=utf-8; q=0.1',
] as const

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/**
 * What lz-string's `compressToBase64` makes of `length` copies of one 8-bit character, written
 * directly (lz-string itself takes minutes over tens of MiB): about 25 KB for 64 MiB, since each
 * code stands for a run one longer than the last.
 */
export const lz64Run = (char: string, length: number): string => {
  const out: string[] = []
  let value = 0
  let filled = 0
  const write = (bits: number, width: number): void => {
    for (let i = 0; i < width; i++, bits >>= 1) {
      value = (value << 1) | (bits & 1)
      if (filled === 5) { out.push(BASE64[value]!); value = 0; filled = 0 } else filled++
    }
  }
  let width = 2
  let enlargeIn = 2
  const grow = (): void => { if (--enlargeIn === 0) { enlargeIn = 2 ** width; width++ } }
  let literal = true
  // The character is code 3; a run of n >= 2 of it is code n + 2.
  const emit = (run: number): void => {
    if (literal) { write(0, width); write(char.charCodeAt(0), 8); grow(); literal = false } else write(run === 1 ? 3 : run + 2, width)
    grow()
  }
  let longest = 1
  let run = 1
  let rest = length - 1
  while (rest > 0) {
    const take = Math.min(longest - run, rest)
    run += take
    rest -= take
    if (rest === 0) break
    emit(run)
    longest = run + 1
    run = 1
    rest--
  }
  emit(run)
  write(2, width)
  for (;;) { value <<= 1; if (filled === 5) { out.push(BASE64[value]!); break } filled++ }
  const text = out.join('')
  return text + '='.repeat((4 - (text.length % 4)) % 4)
}

const MIB = 1024 * 1024
const remembered = <T>(make: (mib: number) => T) => {
  const made = new Map<number, T>()
  return (mib: number): T => {
    if (!made.has(mib)) made.set(mib, make(mib))
    return made.get(mib)!
  }
}
/** An lz64 body of a few KB that decodes to `mib` MiB of spaces. */
export const lz64Bomb = remembered((mib) => lz64Run(' ', mib * MIB))
/** A gzip body that inflates to `mib` MiB of spaces. */
const gzipBomb = remembered((mib) => gzipSync(Buffer.alloc(mib * MIB, 0x20)))

const GZIP_BOMBS = [3, 30]
const LZ64_BOMBS = [5, 21, 64, 1024]
const LZ64_FORM_BOMBS = [21, 256]

/** Makes every bomb the bodies below may pick, so that making them is not counted against the server's event loop. */
export const prepareBombs = (): void => {
  for (const mib of GZIP_BOMBS) gzipBomb(mib)
  for (const mib of [...LZ64_BOMBS, ...LZ64_FORM_BOMBS]) lz64Bomb(mib)
}

/** Headers beyond the content type: lengths that disagree with the body, duplicates, unknown encodings, huge values within node's limit. */
const oddHeaders: fc.Arbitrary<Record<string, string | string[]>> = fc.record({
  'content-length': fc.constantFrom('0', '1', '99999999', '-1', 'abc', '1e3', ' 5'),
  'content-type': fc.constantFrom<string | string[]>(['application/json', 'text/plain'], ['text/plain', 'application/json'], ['application/json', 'application/json']),
  'content-encoding': fc.constantFrom('br', 'deflate', 'x-unknown', 'gzip, identity', 'identity', 'GZIP', ''),
  'x-forwarded-for': fc.nat({ max: 600 }).map((n) => Array.from({ length: n }, (_, i) => `10.0.${i % 256}.1`).join(', ')),
  'user-agent': fc.nat({ max: 8000 }).map((n) => 'a'.repeat(n)),
  cookie: fc.nat({ max: 6000 }).map((n) => `ph_session=${'z'.repeat(n)}`),
}, { requiredKeys: [] })

/** Text that JSON allows but that trips careless code: NUL, lone surrogates, huge numbers, odd keys. */
const awkwardText = fc.constantFrom('toString', 'valueOf', '\u0000', '\uD800', '\uDFFF', 'a\uD83D', '\u202E', '__proto__', 'constructor', '$set', '1e999', '-0', '%00', '../../etc')

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
 * garbage and bombs, odd content types, encodings and other headers.
 */
export const hostileBody = (shape: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<HostileBody> =>
  fc.tuple(anyBody(shape), fc.option(oddHeaders, { freq: 4 })).map(([body, headers]) => (headers ? { ...body, headers } : body))

const anyBody = (shape: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<HostileBody> => {
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
    fc.constantFrom(...GZIP_BOMBS).map((mib) => ({ payload: gzipBomb(mib), contentType: 'application/json', contentEncoding: 'gzip' })),
    fc.string({ maxLength: 200 }).map((text) => ({ payload: Buffer.from(`data=${encodeURIComponent(text)}`), contentType: 'application/x-www-form-urlencoded' })),
    fc.base64String({ maxLength: 200 }).map((text) => ({ payload: Buffer.from(`data=${text}!!&compression=base64`), contentType: 'application/x-www-form-urlencoded' })),
    fc.string({ maxLength: 200 }).map((text) => ({ payload: Buffer.from(text), contentType: 'text/plain', query: 'compression=lz64' })),
    fc.constantFrom(...LZ64_BOMBS).map((mib) => ({ payload: Buffer.from(lz64Bomb(mib)), contentType: 'text/plain', query: 'compression=lz64' })),
    fc.constantFrom(...LZ64_FORM_BOMBS).map((mib) => ({ payload: Buffer.from(`data=${encodeURIComponent(lz64Bomb(mib))}&compression=lz64`), contentType: 'application/x-www-form-urlencoded' })),
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
