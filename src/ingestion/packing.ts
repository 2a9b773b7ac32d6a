import { DEFAULT_MAX_APPEND_SIZE, recordSize } from '../eventlog/append-rules.js'
import type { CapturedEvent } from './captured-event.js'
import { tooLarge } from './errors.js'
import { forEachSliced } from '../kernel/slices.js'

/** What one append may weigh, counted as the log counts it, with a tenth kept in reserve. */
export const APPEND_BUDGET = Math.floor(DEFAULT_MAX_APPEND_SIZE * 0.9)
/** What one log event's data may weigh, so that readers get modest records. */
export const RECORD_BUDGET = 256 * 1024

/** A run of analytics events that goes into one log event, with its serialised weight. */
export interface Pack {
  readonly events: CapturedEvent[]
  /** Bytes of the events' JSON, commas included. */
  readonly bytes: number
}

/** Serialised weight of each event, and an optional observer of its JSON (for a digest). */
export const weigh = (events: readonly CapturedEvent[], observe?: (json: string) => void): number[] =>
  events.map((event) => {
    const json = JSON.stringify(event)
    observe?.(json)
    return Buffer.byteLength(json)
  })

/** `weigh`, a slice at a time, handing the event loop back in between: for requests of any size. */
export const weighSliced = async (events: readonly CapturedEvent[], observe?: (json: string) => void): Promise<number[]> => {
  const weights = new Array<number>(events.length)
  await forEachSliced(events, (event, i) => {
    const json = JSON.stringify(event)
    observe?.(json)
    weights[i] = Buffer.byteLength(json)
  })
  return weights
}

/** Refuses with 413 the first event that could not fit in any append, `wrapper` being its log event's other weight. */
export const checkWeights = (weights: readonly number[], wrapper: number): void => {
  for (const weight of weights) if (wrapper + weight + 1 > APPEND_BUDGET) throw tooLarge(`one event weighs ${weight + 1} bytes`)
}

/** Splits items, in order, into runs of at most `RECORD_BUDGET` bytes by their weights (one item always fits in a run of its own). */
export const splitPacks = <T>(items: readonly T[], weights: readonly number[]): { items: T[]; bytes: number }[] => {
  const packs: { items: T[]; bytes: number }[] = []
  let current: T[] = []
  let bytes = 0
  items.forEach((item, i) => {
    const weight = weights[i]! + 1
    if (current.length > 0 && bytes + weight > RECORD_BUDGET) {
      packs.push({ items: current, bytes })
      current = []
      bytes = 0
    }
    current.push(item)
    bytes += weight
  })
  if (current.length > 0) packs.push({ items: current, bytes })
  return packs
}

/**
 * Splits events, in order, into packs of at most `RECORD_BUDGET` bytes (one event always fits in
 * a pack of its own). `wrapper` is the weight of one log event around its events: type, metadata
 * and the data's other fields. An event that could not fit in any append is refused with 413.
 */
export const packEvents = (events: readonly CapturedEvent[], weights: readonly number[], wrapper: number): Pack[] => {
  checkWeights(weights, wrapper)
  return splitPacks(events, weights).map(({ items, bytes }) => ({ events: items, bytes }))
}

/**
 * Whether `count` events decoded from `textBytes` of JSON surely fit in one append as one log
 * event (larger than a pack, but well within what the log takes), without
 * serialising them to find out. Re-serialising parsed JSON grows it at most about fivefold (a
 * number such as `1e20` is written out in full); each event gains at most its envelope (uuid,
 * times, an escaped distinct id of 200 characters) and the caller's address.
 */
export const surelyFitsOneAppend = (textBytes: number, count: number, ipBytes: number, wrapper: number): boolean =>
  wrapper + textBytes * 6 + count * (1600 + ipBytes * 6) <= APPEND_BUDGET

/** Groups records, in order, into appends that stay within `APPEND_BUDGET`. */
export const groupAppends = <R extends { readonly weight: number }>(records: readonly R[]): R[][] => {
  const appends: R[][] = []
  let current: R[] = []
  let total = 0
  for (const record of records) {
    if (current.length > 0 && total + record.weight > APPEND_BUDGET) {
      appends.push(current)
      current = []
      total = 0
    }
    current.push(record)
    total += record.weight
  }
  if (current.length > 0) appends.push(current)
  return appends
}

/** The log's weight of one event: data and metadata JSON plus its type, as the adapters count. */
export const weightOf = (type: string, dataBytes: number, metadataBytes: number): number => recordSize(type, dataBytes, metadataBytes)
