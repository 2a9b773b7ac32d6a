import { createHash } from 'node:crypto'
import type { EventLog, JsonObject, Position } from '../eventlog/port.js'
import { SCHEMA_VERSION } from '../kernel/handle-command.js'
import { newEventId, newUlid } from '../kernel/ids.js'
import { appendCaptured, appendPrepared } from './append.js'
import type { CapturedEvent } from './captured-event.js'
import { queryParam, type IngestRequestLike } from './decode.js'
import { decodeJobOf, isLarge, mayExpand, runDecodeJob, type DecodeJob, type DecodedRequest } from './decode-job.js'
import { ON_LOOP_DECODED_BYTES } from './limits.js'
import type { DecodePool } from './decode-pool.js'
import { unknownToken } from './errors.js'
import { CaptureError } from '../http/capture-error.js'
import { importHistorical } from './historical.js'
import type { ImportLedger } from './import-ledger.js'
import { normaliseEvent, type DropReason, type RequestContext } from './normalise.js'
import { withoutPerformanceEvents } from './payload.js'
import type { PreparedCapture } from './prepare.js'
import { forEachSliced } from '../kernel/slices.js'
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
  /** posthog-node's v1 body, whose token came in `Authorization`: decoded as the rest, then read as a batch. */
  readonly v1Token?: string
  /**
   * For a historical-migration batch named by its content (`hedgelog import`): the environment's
   * ledger, so that the batch is committed only if no batch of the same key was.
   */
  readonly ledger?: ImportLedger
}

export interface CaptureOutcome {
  readonly accepted: number
  readonly dropped: number
  /** Where the last write landed; null when nothing was written. */
  readonly position: Position | null
  /** Set for a historical-migration batch. */
  readonly batchId?: string
  /** Set when the ledger given already held a batch of the same key: nothing was committed. */
  readonly alreadyCommitted?: boolean
}

/**
 * A request whose every event carries its own uuid is named by its content, so an SDK's retry
 * of the same body lands on the same streams and is recognised; otherwise it gets a fresh id.
 */
const requestIdOf = (environmentId: number, textDigest: string | null, now: number): string => {
  if (textDigest === null) return newEventId(now)
  return createHash('sha256').update(`${environmentId}\n${textDigest}`).digest('hex').slice(0, 32)
}

/**
 * Small requests are decoded on the loop; one that may expand is first tried on the loop with a
 * small cap on what it decodes to. Null when the request is for a decoding thread.
 */
const decodeOnLoop = async (deps: CaptureDeps, job: DecodeJob): Promise<DecodedRequest | null> => {
  if (!deps.decoder) return runDecodeJob(job)
  if (isLarge(job)) return null
  if (!mayExpand(job)) return runDecodeJob(job)
  try {
    return await runDecodeJob({ ...job, maxDecodedBytes: Math.min(job.maxDecodedBytes ?? ON_LOOP_DECODED_BYTES, ON_LOOP_DECODED_BYTES) })
  } catch (error) {
    if (error instanceof CaptureError && error.status === 413) return null
    throw error
  }
}

/**
 * One capture request, end to end: decode, recognise the shape, find the token and its
 * environment, normalise each event (dropping what the spec drops), then write. Resolves once
 * everything accepted is durable; throws CaptureError for what PostHog refuses. A heavy request
 * is decoded, normalised and packed on a decoding thread, so the loop only wraps and appends it,
 * one such request at a time.
 */
export const capture = async (deps: CaptureDeps, input: CaptureInput): Promise<CaptureOutcome> => {
  const now = Date.now()
  const job = decodeJobOf(input)
  const decoded = await decodeOnLoop(deps, job)
  if (decoded) return captureDecoded(deps, input, decoded, now)
  return deps.decoder!.inTurn(job, { now, ip: input.ip, time: queryParam(input.query, '_') }, (fromThread) =>
    'prepared' in fromThread ? capturePrepared(deps, input, fromThread.prepared, now) : captureDecoded(deps, input, fromThread, now))
}

const captureDecoded = async (deps: CaptureDeps, input: CaptureInput, decoded: DecodedRequest, now: number): Promise<CaptureOutcome> => {
  const { request, textBytes, digest } = decoded
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
    const committed = await importHistorical(deps.log, { environmentId, batchId, events: captured, metadata }, input.ledger)
    if (committed === null) return { accepted: 0, dropped, position: null, batchId, alreadyCommitted: true }
    return { accepted: captured.length, dropped, position: committed.position, batchId }
  }
  const requestId = requestIdOf(environmentId, digest, now)
  const position = await appendCaptured(deps.log, {
    environmentId, requestId, events: captured, metadata: ingestMetadata(requestId, token, nowIso),
    source: { textBytes, ipBytes: input.ip === null ? 0 : Buffer.byteLength(input.ip) },
  })
  return { accepted: captured.length, dropped, position }
}

/** The rest of capture for a realtime request a decoding thread made ready, with the same refusals in the same order. */
const capturePrepared = async (deps: CaptureDeps, input: CaptureInput, prepared: PreparedCapture, now: number): Promise<CaptureOutcome> => {
  const { token } = prepared
  if (token === null) return { accepted: 0, dropped: prepared.received, position: null }
  const environmentId = await deps.resolveToken(token)
  if (environmentId === null) throw unknownToken()
  if (prepared.refusal) throw new CaptureError(prepared.refusal.status, prepared.refusal.code, prepared.refusal.message)
  for (const drop of prepared.drops) deps.onDrop?.(drop)
  const accepted = prepared.weights.length
  const dropped = prepared.received - accepted
  if (accepted === 0) return { accepted: 0, dropped, position: null }
  const requestId = requestIdOf(environmentId, prepared.digest, now)
  const position = await appendPrepared(deps.log, {
    environmentId, requestId, prepared, metadata: ingestMetadata(requestId, token, new Date(now).toISOString()),
    ipBytes: input.ip === null ? 0 : Buffer.byteLength(input.ip),
  })
  return { accepted, dropped, position }
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
