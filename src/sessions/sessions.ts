import type { JsonObject } from '../eventlog/port.js'
import type { NormalisedEvent } from '../persons/normalise.js'
import { urlParts } from './urls.js'
import { ownValue } from '../kernel/own-value.js'

/** Event properties whose first value in a session becomes an `$entry_…` session property. */
export const ENTRY_SOURCES = [
  '$current_url', '$referring_domain', 'utm_source', 'utm_campaign', 'utm_medium', 'utm_term', 'utm_content', 'gclid',
  'gad_source', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'twclid', 'li_fat_id', 'mc_cid', 'igshid',
  'ttclid', '_kx', 'irclid',
] as const
/** Event properties whose last value in a session counts. */
export const END_SOURCES = ['$current_url', '$external_click_url'] as const

/** A value with the timestamp of the event it came from. */
export type Stamped = [value: string, timestamp: string]

/** `sessions` document `<environmentId>:<sessionId>`. */
export interface SessionRecord extends JsonObject {
  environment_id: number
  session_id: string
  /** The distinct id of the session's earliest event. */
  distinct_id: string
  start_timestamp: string
  end_timestamp: string
  /** The earliest non-empty value of each entry source. */
  entry: Record<string, Stamped>
  /** The latest non-empty value of each end source. */
  end: Record<string, Stamped>
  event_count: number
  pageview_count: number
  autocapture_count: number
  screen_count: number
}

/** `session_values` document `<environmentId>:<source>:<value>`: one value seen on an event of a session. */
export interface SessionValue extends JsonObject {
  environment_id: number
  source: string
  value: string
}

export const sessionKey = (environmentId: number, sessionId: string): string => `${environmentId}:${sessionId}`

/** Session properties are text: numbers and booleans as written, anything else not at all. */
export const textOf = (value: unknown): string | null => {
  if (typeof value === 'string') return value === '' ? null : value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return null
}

/** The session an event's properties name, if any. */
export const sessionIdOf = (properties: JsonObject | undefined): string | null => {
  const id = properties?.['$session_id']
  return typeof id === 'string' && id !== '' ? id : null
}

const restamp = (
  current: Record<string, Stamped>, sources: readonly string[], properties: JsonObject, timestamp: string, earliest: boolean,
): Record<string, Stamped> => {
  let out = current
  for (const source of sources) {
    const value = textOf(properties[source])
    if (value === null) continue
    const known = out[source]
    if (known && (earliest ? timestamp >= known[1] : timestamp < known[1])) continue
    if (out === current) out = { ...current }
    out[source] = [value, timestamp]
  }
  return out
}

const COUNTERS: Readonly<Record<string, 'pageview_count' | 'autocapture_count' | 'screen_count'>> = {
  $pageview: 'pageview_count', $autocapture: 'autocapture_count', $screen: 'screen_count',
}

/** Folds one event into its session; events may arrive out of timestamp order. */
export const foldSession = (
  current: SessionRecord | null, environmentId: number, sessionId: string, event: NormalisedEvent,
): SessionRecord => {
  const { timestamp, properties } = event
  const base: SessionRecord = current ?? {
    environment_id: environmentId, session_id: sessionId, distinct_id: event.distinctId,
    start_timestamp: timestamp, end_timestamp: timestamp, entry: {}, end: {},
    event_count: 0, pageview_count: 0, autocapture_count: 0, screen_count: 0,
  }
  const next: SessionRecord = {
    ...base,
    entry: restamp(base.entry, ENTRY_SOURCES, properties, timestamp, true),
    end: restamp(base.end, END_SOURCES, properties, timestamp, false),
    event_count: base.event_count + 1,
  }
  if (timestamp < base.start_timestamp) {
    next.start_timestamp = timestamp
    next.distinct_id = event.distinctId
  }
  if (timestamp > base.end_timestamp) next.end_timestamp = timestamp
  const counter = ownValue(COUNTERS, event.event)
  if (counter) next[counter] = base[counter] + 1
  return next
}

const VALUE_SOURCES: readonly string[] = [...ENTRY_SOURCES, '$external_click_url']

/**
 * The values an event contributes to the session property values helper, by source: each text
 * source property, and the host and path of `$current_url`.
 */
export const observedValues = (properties: JsonObject): [source: string, value: string][] => {
  const out: [string, string][] = []
  for (const source of VALUE_SOURCES) {
    const value = textOf(properties[source])
    if (value === null) continue
    out.push([source, value])
    if (source !== '$current_url') continue
    const parts = urlParts(value)
    if (parts?.host) out.push(['url_host', parts.host])
    if (parts?.path) out.push(['url_path', parts.path])
  }
  return out
}

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    sessions: SessionRecord
    session_values: SessionValue
  }
}
