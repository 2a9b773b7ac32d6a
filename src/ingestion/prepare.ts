import type { DecodedRequest } from './decode-job.js'
import { CaptureError, type CaptureErrorCode } from '../http/capture-error.js'
import { normaliseEvent, type DropReason, type RequestContext } from './normalise.js'
import { splitPacks } from './packing.js'
import { withoutPerformanceEvents } from './payload.js'
import { requestSentAt } from './timestamp.js'
import { requestToken } from './token.js'

/** What a request's normalising needs besides its body. */
export interface PrepareContext {
  /** Receive time, ms since the epoch. */
  readonly now: number
  readonly ip: string | null
  /** The `_` query parameter, as received: a sent-at time. */
  readonly time: unknown
}

/** A capture refusal as plain data, so that it can cross from a decoding thread. */
export interface Refusal { readonly status: number; readonly code: CaptureErrorCode; readonly message: string }

export const refusalOf = (error: CaptureError): Refusal => ({ status: error.status, code: error.code, message: error.message })

/**
 * A realtime capture request made ready to write: its events normalised, serialised and split
 * into packs of UTF-8 JSON, so that what serves requests only wraps and appends them (the packs'
 * buffers move from a decoding thread without being copied).
 */
export interface PreparedCapture {
  /** Events the request held, `$performance_event`s included. */
  readonly received: number
  /** The request's token, trimmed; null when no event remained once `$performance_event`s were removed. */
  readonly token: string | null
  /** A refusal found while normalising, raised only once the token is known to be an environment's. */
  readonly refusal: Refusal | null
  readonly drops: readonly DropReason[]
  /** Each pack's events as UTF-8 JSON, comma-separated without brackets, and their bytes commas included. */
  readonly packs: readonly Uint8Array[]
  readonly packBytes: readonly number[]
  /** The serialised bytes of each accepted event. */
  readonly weights: readonly number[]
  readonly textBytes: number
  /** As decoded: set when every event carried its own UUID (the request is then named by its content). */
  readonly digest: string | null
}

/** Normalises and packs a decoded realtime request, as capture on the event loop would. */
export const prepareCapture = (decoded: DecodedRequest, context: PrepareContext): PreparedCapture => {
  const { request, textBytes, digest } = decoded
  const events = withoutPerformanceEvents(request.events)
  const base = { received: request.events.length, refusal: null, drops: [], packs: [], packBytes: [], weights: [], textBytes, digest }
  if (events.length === 0) return { ...base, token: null }
  const token = requestToken(request)
  const sentAt = requestSentAt(request.sentAt, context.time)
  const requestContext: RequestContext = {
    now: context.now, nowIso: new Date(context.now).toISOString(), sentAt, sentAtIso: sentAt === null ? null : new Date(sentAt).toISOString(), ip: context.ip,
  }
  const drops: DropReason[] = []
  const texts: string[] = []
  const weights: number[] = []
  try {
    for (const raw of events) {
      const result = normaliseEvent(raw, requestContext)
      if (!result.ok) {
        drops.push(result.drop)
        continue
      }
      const text = JSON.stringify(result.event)
      texts.push(text)
      weights.push(Buffer.byteLength(text))
    }
  } catch (error) {
    if (error instanceof CaptureError) return { ...base, token, refusal: refusalOf(error) }
    throw error
  }
  const packs = splitPacks(texts, weights)
  const encoder = new TextEncoder()
  return { ...base, token, drops, packs: packs.map((pack) => encoder.encode(pack.items.join(','))), packBytes: packs.map((pack) => pack.bytes), weights }
}
