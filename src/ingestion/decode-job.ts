import { createHash } from 'node:crypto'
import { v1AsBatch } from './capture-v1.js'
import { decodeIngestText, parseIngestJson, type IngestRequestLike } from './decode.js'
import { tooLarge } from './errors.js'
import { MAX_EVENTS_PER_REQUEST, OFF_LOOP_BYTES } from './limits.js'
import { escapesSurrogates, wellFormedJson } from '../kernel/well-formed.js'
import { namedByContent, readCaptureRequest, type CaptureRequest } from './payload.js'

/** What decoding a capture request needs, as plain data that can cross to a decoding thread. */
export interface DecodeJob {
  readonly body: Uint8Array | string | undefined
  readonly headers: { readonly 'content-type'?: string; readonly 'content-encoding'?: string }
  readonly query: { readonly data?: string; readonly compression?: string }
  readonly engage: boolean
  readonly maxDecodedBytes?: number
  /** Set for posthog-node's v1 body (`{created_at, batch}`): the project token its header carried. */
  readonly v1Token?: string
}

/** A decoded request, and what the rest of capture needs to know of the text it came from. */
export interface DecodedRequest {
  readonly request: CaptureRequest
  readonly textBytes: number
  /**
   * SHA-256 of the decoded text, which names a request whose events all carry their uuid (so a
   * retry of it is recognised); null for any other request, which gets a fresh id instead.
   */
  readonly digest: string | null
}

const stringOrUndefined = (value: unknown): string | undefined => (typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined)

/** Keeps only what the decoder reads of a request, so it can be posted to a thread. */
export const decodeJobOf = (input: IngestRequestLike & { readonly engage?: boolean; readonly maxDecodedBytes?: number; readonly v1Token?: string }): DecodeJob => {
  const query = (input.query !== null && typeof input.query === 'object' ? input.query : {}) as Record<string, unknown>
  const { body } = input
  const data = stringOrUndefined(query['data'])
  const compression = stringOrUndefined(query['compression'])
  const contentType = stringOrUndefined(input.headers['content-type'])
  const contentEncoding = stringOrUndefined(input.headers['content-encoding'])
  return {
    body: Buffer.isBuffer(body) || typeof body === 'string' ? body : undefined,
    headers: { ...(contentType === undefined ? {} : { 'content-type': contentType }), ...(contentEncoding === undefined ? {} : { 'content-encoding': contentEncoding }) },
    query: { ...(data === undefined ? {} : { data }), ...(compression === undefined ? {} : { compression }) },
    engage: input.engage === true,
    ...(input.maxDecodedBytes === undefined ? {} : { maxDecodedBytes: input.maxDecodedBytes }),
    ...(input.v1Token === undefined ? {} : { v1Token: input.v1Token }),
  }
}

const GZIP_MAGIC = 0x1f8b

/** Whether a request is too large to decode and parse on the event loop at all. */
export const isLarge = (job: DecodeJob): boolean => {
  const { body } = job
  const size = body === undefined ? 0 : typeof body === 'string' ? body.length : body.byteLength
  return size >= OFF_LOOP_BYTES || (job.query.data?.length ?? 0) >= OFF_LOOP_BYTES
}

/**
 * Whether a request may decode to much more than it is: compressed or form-encoded (both can
 * hide a payload many times larger than what was received).
 */
export const mayExpand = (job: DecodeJob): boolean => {
  const { body } = job
  if (job.query.compression !== undefined || job.headers['content-encoding'] !== undefined) return true
  if (job.headers['content-type']?.toLowerCase().includes('x-www-form-urlencoded')) return true
  return body instanceof Uint8Array && body.byteLength >= 2 && ((body[0]! << 8) | body[1]!) === GZIP_MAGIC
}

/** Refuses a request with more events than one request may carry, in capture's 413 shape. */
export const checkEventCount = (count: number): void => {
  if (count > MAX_EVENTS_PER_REQUEST) throw tooLarge(`request holds ${count} events, more than the ${MAX_EVENTS_PER_REQUEST} allowed in one request`)
}

const HASHED_CHARS = 256 * 1024

/**
 * SHA-256 of a text's UTF-8, fed a slice at a time (never splitting a surrogate pair), so that
 * hashing a large text needs no buffer of all its bytes.
 */
export const sha256OfText = (text: string): string => {
  const hash = createHash('sha256')
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + HASHED_CHARS)
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--
    hash.update(text.slice(start, end))
    start = end
  }
  return hash.digest('hex')
}

/**
 * Decodes, parses and recognises a capture request; the same work on a thread or on the loop.
 * Every capture path (realtime, historical batches, `hedgelog import`) comes through here, so
 * this is where strings are made well-formed: a lone surrogate escaped in the JSON (`"\ud800"`)
 * would be stored as it is, and every later answer that shows it would not be valid UTF-8.
 */
export const runDecodeJob = async (job: DecodeJob): Promise<DecodedRequest> => {
  const body = job.body instanceof Uint8Array && !Buffer.isBuffer(job.body) ? Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength) : job.body
  const text = await decodeIngestText({ body, headers: job.headers, query: job.query }, job.maxDecodedBytes === undefined ? {} : { maxDecodedBytes: job.maxDecodedBytes })
  const parsed = parseIngestJson(text)
  const json = escapesSurrogates(text) ? wellFormedJson(parsed) : parsed
  const request = readCaptureRequest(job.v1Token === undefined ? json : v1AsBatch(json, job.v1Token), { engage: job.engage })
  checkEventCount(request.events.length)
  return { request, textBytes: Buffer.byteLength(text), digest: namedByContent(request) ? sha256OfText(text) : null }
}
