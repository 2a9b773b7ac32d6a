import { isUtf8 } from 'node:buffer'
import { MAX_JSON_DEPTH, nestsDeeperThan, textNestsDeeperThan } from '../kernel/json-depth.js'
import { decodingFailed, emptyPayload, parsingFailed, tooLarge } from './errors.js'
import { gunzipText } from './gunzip-text.js'
import { decompressLz64 } from './lz64.js'

/** What the decoder needs of a request: fastify's request fits, and so does a plain object. */
export interface IngestRequestLike {
  /** A Buffer (the ingestion routes' parser), a string, or a body some other parser already read. */
  readonly body?: unknown
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  readonly query?: unknown
}

export interface DecodeOptions {
  /** Largest decoded payload, in bytes. Default 20 MiB. */
  readonly maxDecodedBytes?: number
}

export const DEFAULT_MAX_DECODED_BYTES = 20 * 1024 * 1024

type Compression = 'gzip' | 'lz64' | 'none'

const GZIP_MAGIC = [0x1f, 0x8b, 0x08] as const
const FORM_MIME = 'application/x-www-form-urlencoded'
const SNIFF_BYTES = 128

/** Recognised compression names; anything else means "none" (base64 is handled by sniffing). */
const compressionOf = (value: unknown): Compression | null => {
  if (typeof value !== 'string') return null
  switch (value.trim().toLowerCase()) {
    case 'gzip': case 'gzip-js': return 'gzip'
    case 'lz64': case 'lz-string': return 'lz64'
    default: return null
  }
}

const header = (request: IngestRequestLike, name: string): string | undefined => {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** One query parameter of an ingestion request, whatever shape the query arrived in. */
export const queryParam = (query: unknown, name: string): unknown =>
  query !== null && typeof query === 'object' && Object.hasOwn(query, name) ? Reflect.get(query, name) : undefined

const queryValue = (request: IngestRequestLike, name: string): unknown => queryParam(request.query, name)

const startsWithGzip = (bytes: Buffer): boolean =>
  bytes.length >= 3 && bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1] && bytes[2] === GZIP_MAGIC[2]

/** A form body starts with one of posthog-js's field names, or has one early on after `&`. */
const looksLikeForm = (bytes: Buffer): boolean => {
  const head = bytes.toString('latin1', 0, Math.min(bytes.length, SNIFF_BYTES))
  return /^(?:data|_|ip|compression|ver)=/.test(head) || /&(?:data|_|ip|compression|ver)=/.test(head)
}

const BASE64_BYTE = new Uint8Array(256)
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_') BASE64_BYTE[c.charCodeAt(0)] = 1

/** PostHog's sniff: the first 128 bytes are base64 (either alphabet) and the length is a multiple of 4. */
const looksLikeStrictBase64 = (bytes: Buffer): boolean => {
  if (bytes.length === 0 || bytes.length % 4 !== 0) return false
  const end = Math.min(bytes.length, SNIFF_BYTES)
  for (let i = 0; i < end; i++) if (BASE64_BYTE[bytes[i]!] === 0) return false
  return true
}

const BASE64_TEXT = /^[A-Za-z0-9+/\-_]+={0,2}$/

/** Decodes standard or URL-safe base64 only when every character belongs to it; else null. */
const decodeBase64 = (text: string): Buffer | null => {
  const trimmed = text.trim()
  if (trimmed.length < 4 || !BASE64_TEXT.test(trimmed)) return null
  const decoded = Buffer.from(trimmed, 'base64')
  return decoded.length === 0 ? null : decoded
}

const utf8Text = (bytes: Buffer, limit: number): string => {
  if (bytes.length > limit) throw tooLarge(`payload exceeds ${limit} bytes`)
  if (!isUtf8(bytes)) throw decodingFailed('invalid body encoding')
  return bytes.toString('utf8')
}

const rawBytes = (request: IngestRequestLike): Buffer => {
  const data = queryValue(request, 'data')
  if (typeof data === 'string' && data !== '') {
    // The query parser turned '+' into spaces; base64 needs them back.
    return Buffer.from(/^[A-Za-z0-9+/=\-_ ]+$/.test(data) ? data.replace(/ /g, '+') : data, 'utf8')
  }
  const { body } = request
  if (Buffer.isBuffer(body) && body.length > 0) return body
  if (typeof body === 'string' && body !== '') return Buffer.from(body, 'utf8')
  throw emptyPayload()
}

/** Form bodies (`data=…&compression=…`): the payload is the `data` field. */
const formPayload = (bytes: Buffer): { payload: Buffer | null; compression: Compression | null } => {
  if (!looksLikeForm(bytes)) throw decodingFailed('expected form data in POST request payload')
  const form = new URLSearchParams(bytes.toString('utf8'))
  let data = form.get('data')
  // urlencoding turned base64's '+' into spaces: restore them.
  if (data !== null && /^[A-Za-z0-9+/=\-_ ]+$/.test(data)) data = data.replace(/ /g, '+')
  return { payload: data === null ? null : Buffer.from(data, 'utf8'), compression: compressionOf(form.get('compression')) }
}

/**
 * The body of an ingestion request as text, following PostHog capture's pipeline: payload from
 * the `data` query parameter or the body; a whole-body base64 sniff; form decoding; compression
 * from the query, the form or `Content-Encoding` (gzip also by its magic bytes); then, when the
 * text is still base64 (posthog-js's `compression=base64` form bodies), one more unwrap.
 */
export const decodeIngestText = async (request: IngestRequestLike, options: DecodeOptions = {}): Promise<string> => {
  const limit = options.maxDecodedBytes ?? DEFAULT_MAX_DECODED_BYTES
  let bytes = rawBytes(request)
  const queryCompression = compressionOf(queryValue(request, 'compression'))
  if (queryCompression !== 'lz64' && looksLikeStrictBase64(bytes) && !looksLikeForm(bytes)) {
    bytes = decodeBase64(bytes.toString('latin1')) ?? bytes
  }
  let formCompression: Compression | null = null
  if (header(request, 'content-type')?.split(';')[0]?.trim().toLowerCase() === FORM_MIME) {
    const form = formPayload(bytes)
    formCompression = form.compression
    if (form.payload) bytes = form.payload
  }
  const compression = queryCompression ?? formCompression ?? compressionOf(header(request, 'content-encoding')) ?? 'none'
  if (compression === 'lz64') return decompressLz64(bytes.toString('utf8').trim(), limit)
  const text = compression === 'gzip' || startsWithGzip(bytes) ? await gunzipText(bytes, limit) : utf8Text(bytes, limit)
  const first = text.charCodeAt(0)
  if (first === 0x7b || first === 0x5b) return text // '{' or '[': JSON already
  const unwrapped = decodeBase64(text)
  if (!unwrapped) return text
  return startsWithGzip(unwrapped) ? gunzipText(unwrapped, limit) : utf8Text(unwrapped, limit)
}

/**
 * Parses decoded ingestion text. JSON nested deeper than `MAX_JSON_DEPTH` is refused as PostHog's
 * capture refuses over-deep JSON, with a 400 decoding error, so nothing stored is too deep for a
 * read store or for the recursion of `JSON.stringify`.
 */
export const parseIngestJson = (text: string): unknown => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw parsingFailed(error instanceof Error ? error.message : 'invalid JSON')
  }
  const tooDeep = text.length >= TEXT_DEPTH_CHECK_CHARS ? textNestsDeeperThan(text, MAX_JSON_DEPTH) : nestsDeeperThan(json, MAX_JSON_DEPTH)
  if (tooDeep) throw decodingFailed(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`)
  return json
}

/**
 * Texts at least this long have their depth checked on the text rather than on the parsed value:
 * walking a value costs per key (about 0.25 µs for each key of an object of thousands), the text
 * per character (a few nanoseconds, strings skipped). Ordinary SDK batches, below it, are walked,
 * which is faster for them.
 */
const TEXT_DEPTH_CHECK_CHARS = 64 * 1024

/**
 * The decoded JSON of an ingestion request, whatever encoding the client chose. A body that
 * another content-type parser already turned into an object or array is returned as it is (the
 * HTTP layer bounds its depth).
 */
export const decodeIngestBody = async (request: IngestRequestLike, options: DecodeOptions = {}): Promise<unknown> => {
  const { body } = request
  if (body !== null && typeof body === 'object' && !Buffer.isBuffer(body)) return body
  return parseIngestJson(await decodeIngestText(request, options))
}
