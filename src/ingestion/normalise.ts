import { type JsonObject, isJsonObject } from '../eventlog/port.js'
import { canonicalJson } from '../kernel/canonical-json.js'
import { newEventId } from '../kernel/ids.js'
import type { CapturedEvent } from './captured-event.js'
import { parsingFailed } from './errors.js'
import type { RawEvent } from './payload.js'
import { eventTimestamp } from './timestamp.js'

/** Why an event was dropped with a silent 200 (spec §7). */
export type DropReason = 'missing_event_name' | 'missing_distinct_id' | 'empty_distinct_id'

export type Normalised = { readonly ok: true; readonly event: CapturedEvent } | { readonly ok: false; readonly drop: DropReason }

/** What every event of one request shares. */
export interface RequestContext {
  /** Receive time, ms since the epoch. */
  readonly now: number
  readonly nowIso: string
  /** The request's valid `sent_at`, ms since the epoch, or null. */
  readonly sentAt: number | null
  readonly sentAtIso: string | null
  readonly ip: string | null
}

const MAX_DISTINCT_ID_CHARS = 200
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i


/**
 * PostHog accepts any JSON value as a distinct id: strings as they are, anything else as JSON
 * text. NUL becomes U+FFFD and only the first 200 characters are kept.
 */
export const distinctIdOf = (raw: RawEvent): string | null => {
  let value = raw['distinct_id']
  if (value === undefined || value === null) value = raw['$distinct_id']
  if (value === undefined || value === null) {
    const properties = raw['properties']
    value = isJsonObject(properties) ? properties['distinct_id'] : undefined
  }
  if (value === undefined || value === null) return null
  let text = typeof value === 'string' ? value : typeof value === 'object' ? canonicalJson(value) : String(value)
  if (text.includes('\0')) text = text.replace(/\0/g, '\uFFFD')
  if (text.length > MAX_DISTINCT_ID_CHARS) {
    const chars = Array.from(text)
    if (chars.length > MAX_DISTINCT_ID_CHARS) text = chars.slice(0, MAX_DISTINCT_ID_CHARS).join('')
  }
  return text
}

/** One sent event → the record capture stores, or the reason it is dropped. */
export const normaliseEvent = (raw: RawEvent, context: RequestContext): Normalised => {
  const name = raw['event']
  if (typeof name !== 'string' || name === '') return { ok: false, drop: 'missing_event_name' }
  const distinctId = distinctIdOf(raw)
  if (distinctId === null) return { ok: false, drop: 'missing_distinct_id' }
  if (distinctId === '') return { ok: false, drop: 'empty_distinct_id' }

  const sentProperties = raw['properties']
  if (sentProperties !== undefined && sentProperties !== null && !isJsonObject(sentProperties)) {
    throw parsingFailed('event properties must be a JSON object')
  }
  const properties: JsonObject = sentProperties ?? {}
  const uuid = raw['uuid']
  const set = raw['$set']
  const setOnce = raw['$set_once']
  const { ms } = eventTimestamp({
    now: context.now,
    sentAt: context.sentAt,
    timestamp: raw['timestamp'],
    offset: raw['offset'],
    ignoreSentAt: properties['$ignore_sent_at'] === true,
  })
  return {
    ok: true,
    event: {
      uuid: typeof uuid === 'string' && UUID.test(uuid) ? uuid : newEventId(context.now),
      event: name,
      distinct_id: distinctId,
      timestamp: ms === context.now ? context.nowIso : new Date(ms).toISOString(),
      properties,
      set: isJsonObject(set) ? set : null,
      set_once: isJsonObject(setOnce) ? setOnce : null,
      // Events marked capture_internal come from PostHog's own services, which PostHog records as local.
      ip: properties['capture_internal'] !== undefined ? '127.0.0.1' : context.ip,
      now: context.nowIso,
      sent_at: context.sentAtIso,
    },
  }
}
