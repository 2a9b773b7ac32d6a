import { createHash } from 'node:crypto'
import type { EventLog, JsonObject, Position } from '../eventlog/port.js'
import { SCHEMA_VERSION } from '../kernel/handle-command.js'
import { newEventId, newUlid } from '../kernel/ids.js'
import { appendCaptured } from './append.js'
import type { CapturedEvent } from './captured-event.js'
import { queryParam, type IngestRequestLike } from './decode.js'
import { decodeJobOf, isLarge, mayExpand, runDecodeJob, type DecodedRequest } from './decode-job.js'
import { ON_LOOP_DECODED_BYTES } from './limits.js'
import type { DecodePool } from './decode-pool.js'
import { CaptureError, unknownToken } from './errors.js'
import { importHistorical } from './historical.js'
import { normaliseEvent, type DropReason, type RequestContext } from './normalise.js'
import { withoutPerformanceEvents, type RawEvent } from './payload.js'
import { forEachSliced } from './slices.js'
import { requestSentAt } from './timestamp.js'
import { requestToken } from './token.js'

export interface CaptureDeps {
  readonly log: EventLog
  /** Project token → environment id, or null for a token no environment has. */
  readonly resolveToken: (token: string) => Promise<number | null> | number | null
  readonly onDrop?: (reason: DropReason) => void
  /** Decoding threads for heavy requests; without them every request is decoded on the loop. */
  readonly decoder?: DecodePool
}

export interface CaptureInput extends IngestRequestLike {
  /** The caller's address: leftmost X-Forwarded-For, else the peer. */
  readonly ip: string | null
  /** `/engage`: a nameless single object is a `$identify`. */
  readonly engage?: boolean
  readonly maxDecodedBytes?: number
  /**
   * The id of a historical-migration batch, when the caller names it (an import that can resume
   * names each batch by its content); a fresh ULID otherwise.
   */
  readonly batchId?: string
}

export interface CaptureOutcome {
  readonly accepted: number
  readonly dropped: number
  /** Where the last write landed; null when nothing was written. */
  readonly position: Position | null
  /** Set for a historical-migration batch. */
  readonly batchId?: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * A request whose every event carries its own uuid is named by its content, so an SDK's retry
 * of the same body lands on the same streams and is recognised; otherwise it gets a fresh id.
 */
const requestIdOf = (environmentId: number, textDigest: string, events: readonly RawEvent[], now: number): string => {
  if (!events.every((e) => typeof e['uuid'] === 'string' && UUID.test(e['uuid']))) return newEventId(now)
  return createHash('sha256').update(`${environmentId}\n${textDigest}`).digest('hex').slice(0, 32)
}

/** Heavy requests are decoded on a thread, so that inflating and parsing never hold the loop. */
/**
 * Large requests are decoded on a decoding thread; one that may expand is first tried on the loop
 * with a small cap on what it decodes to, and goes to a thread when it decodes to more.
 */
const decodeRequest = async (deps: CaptureDeps, input: CaptureInput): Promise<DecodedRequest> => {
  const job = decodeJobOf(input)
  if (!deps.decoder) return runDecodeJob(job)
  if (isLarge(job)) return deps.decoder.decode(job)
  if (!mayExpand(job)) return runDecodeJob(job)
  try {
    return await runDecodeJob({ ...job, maxDecodedBytes: Math.min(job.maxDecodedBytes ?? ON_LOOP_DECODED_BYTES, ON_LOOP_DECODED_BYTES) })
  } catch (error) {
    if (error instanceof CaptureError && error.status === 413) return deps.decoder.decode(job)
    throw error
  }
}

/**
 * One capture request, end to end: decode, recognise the shape, find the token and its
 * environment, normalise each event (dropping what the spec drops), then write. Resolves once
 * everything accepted is durable; throws CaptureError for what PostHog refuses.
 */
export const capture = async (deps: CaptureDeps, input: CaptureInput): Promise<CaptureOutcome> => {
  const now = Date.now()
  const { request, textBytes, digest } = await decodeRequest(deps, input)
  const events = withoutPerformanceEvents(request.events)
  if (events.length === 0) return { accepted: 0, dropped: request.events.length, position: null }
  const token = requestToken(request)
  const environmentId = await deps.resolveToken(token)
  if (environmentId === null) throw unknownToken()

  const sentAt = requestSentAt(request.sentAt, queryParam(input.query, '_'))
  const nowIso = new Date(now).toISOString()
  const context: RequestContext = { now, nowIso, sentAt, sentAtIso: sentAt === null ? null : new Date(sentAt).toISOString(), ip: input.ip }
  const captured: CapturedEvent[] = []
  await forEachSliced(events, (raw) => {
    const result = normaliseEvent(raw, context)
    if (result.ok) captured.push(result.event)
    else deps.onDrop?.(result.drop)
  })
  const dropped = request.events.length - captured.length
  if (captured.length === 0) return { accepted: 0, dropped, position: null }

  if (request.historicalMigration) {
    const batchId = input.batchId ?? newUlid(now)
    const metadata = ingestMetadata(batchId, token, nowIso)
    const committed = await importHistorical(deps.log, { environmentId, batchId, events: captured, metadata })
    return { accepted: captured.length, dropped, position: committed.position, batchId }
  }
  const requestId = requestIdOf(environmentId, digest, events, now)
  const position = await appendCaptured(deps.log, {
    environmentId, requestId, events: captured, metadata: ingestMetadata(requestId, token, nowIso),
    source: { textBytes, ipBytes: input.ip === null ? 0 : Buffer.byteLength(input.ip) },
  })
  return { accepted: captured.length, dropped, position }
}

const ingestMetadata = (requestId: string, token: string, nowIso: string): JsonObject => ({
  correlationId: requestId,
  causationId: requestId,
  actor: token,
  occurredAt: nowIso,
  schemaVersion: SCHEMA_VERSION,
  requestId,
  receivedAt: nowIso,
})
