import { Unavailable, WrongExpectedVersion } from '../eventlog/errors.js'
import type { EventData, EventLog, JsonObject, Position } from '../eventlog/port.js'
import { JsonText, comparePositions } from '../eventlog/port.js'
import type { PreparedCapture } from './prepare.js'
import { EVENTS_CAPTURED, type CapturedEvent } from './captured-event.js'
import { unavailable } from './errors.js'
import { checkWeights, groupAppends, packEvents, surelyFitsOneAppend, weighSliced, weightOf, type Pack } from './packing.js'
import { requestEventId, stableEventId } from './stable-id.js'

export interface CapturedBatch {
  readonly environmentId: number
  /** Names the request's streams; equal requests (a client retry) should give equal ids. */
  readonly requestId: string
  readonly events: readonly CapturedEvent[]
  readonly metadata: JsonObject
  /** Bytes of the JSON the events were decoded from, and of the caller's address: lets a small request skip weighing. */
  readonly source?: { readonly textBytes: number; readonly ipBytes: number }
}

/** The stream of part `part` of a request: the first part has the plain name. */
export const ingestStream = (environmentId: number, requestId: string, part = 0): string =>
  part === 0 ? `ingest-${environmentId}-${requestId}` : `ingest-${environmentId}-${requestId}-${part}`

const RETRIES = 3

/**
 * Appends with `no_stream`, retrying when the outcome is unknown: event ids are fixed by the
 * stream and index, so a retry of a write that did land is recognised. A conflict means this
 * request's stream already exists, which only a retried request can cause: it is already stored.
 */
const appendOnce = async (log: EventLog, stream: string, events: EventData[]): Promise<Position | null> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await log.append(stream, events, { expectedRevision: 'no_stream' })).position
    } catch (error) {
      if (error instanceof WrongExpectedVersion) return null
      if (!(error instanceof Unavailable) || attempt >= RETRIES) throw error instanceof Unavailable ? unavailable() : error
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
    }
  }
}

/**
 * Writes one accepted request's events: packed many to an `EventsCaptured` log event, and split
 * over as few appends as the append budget allows (one for any ordinary request). A request that
 * needs several appends makes them one after another, to sibling streams: each commit then stays
 * within one append's size, however large the request, so none holds the event loop for long
 * (a retried request finds the parts already written and writes only the rest). Resolves with
 * the last position written once every append is durable (null when all were already).
 */
export const appendCaptured = async (log: EventLog, batch: CapturedBatch): Promise<Position | null> => {
  const { environmentId, events, source } = batch
  const wrapper = wrapperWeight(environmentId, batch.metadata)
  const packs: Pack[] = source && surelyFitsOneAppend(source.textBytes, events.length, source.ipBytes, wrapper)
    ? [{ events: [...events], bytes: 0 }]
    : packEvents(events, await weighSliced(events), wrapper)
  return writePacks(log, batch, packs.map((pack) => ({ data: () => ({ environmentId, events: pack.events }), weight: wrapper + pack.bytes - 1 })))
}

/** A request whose events a decoding thread already normalised and packed as JSON text. */
export interface PreparedBatch extends Omit<CapturedBatch, 'events' | 'source'> {
  readonly prepared: PreparedCapture
  readonly ipBytes: number
}

/**
 * `appendCaptured` for a prepared request: the same packs, appends and ids, with each log
 * event's data made by wrapping the prepared text rather than by serialising objects. Every
 * piece of a log event's data is its own (the packs came from the decoding thread, the wrapping
 * is encoded for each), so the embedded log moves them to its commit thread without a copy.
 */
export const appendPrepared = async (log: EventLog, batch: PreparedBatch): Promise<Position | null> => {
  const { environmentId, prepared } = batch
  const wrapper = wrapperWeight(environmentId, batch.metadata)
  const head = `{"environmentId":${JSON.stringify(environmentId)},"events":[`
  const count = prepared.weights.length
  const packs = surelyFitsOneAppend(prepared.textBytes, count, batch.ipBytes, wrapper)
    ? [{ parts: prepared.packs.flatMap((pack, i) => (i === 0 ? [pack] : [UTF8.encode(','), pack])), bytes: 0 }]
    : (checkWeights(prepared.weights, wrapper), prepared.packs.map((pack, i) => ({ parts: [pack], bytes: prepared.packBytes[i]! })))
  return writePacks(log, batch, packs.map(({ parts, bytes }) => ({
    data: () => new JsonText([UTF8.encode(head), ...parts, UTF8.encode(']}')], true),
    weight: wrapper + bytes - 1,
  })))
}

const UTF8 = new TextEncoder()

/** The weight of one `EventsCaptured` log event without its events. */
const wrapperWeight = (environmentId: number, metadata: JsonObject): number =>
  weightOf(EVENTS_CAPTURED, Buffer.byteLength(JSON.stringify({ environmentId, events: [] })), Buffer.byteLength(JSON.stringify(metadata)))

/**
 * Appends the log events, grouped within the append budget, to the request's streams in turn;
 * each group's data is made only when its append is, so that a request's copies never pile up.
 */
const writePacks = async (
  log: EventLog, batch: { readonly environmentId: number; readonly requestId: string; readonly metadata: JsonObject },
  records: readonly { readonly data: () => JsonObject | JsonText; readonly weight: number }[],
): Promise<Position | null> => {
  const { environmentId, requestId, metadata } = batch
  let last: Position | null = null
  for (const [part, group] of groupAppends(records).entries()) {
    const stream = ingestStream(environmentId, requestId, part)
    const data = group.map(({ data }, index): EventData => ({
      id: part === 0 && index === 0 ? requestEventId(requestId) : stableEventId(`${stream}:${index}`),
      type: EVENTS_CAPTURED,
      data: data(),
      metadata,
    }))
    const position = await appendOnce(log, stream, data)
    if (position && (!last || comparePositions(position, last) > 0)) last = position
  }
  return last
}
