import { namesMissingDay } from './calendar-day.js'

/** Which input decided an event's timestamp. */
export type TimestampSource = 'offset' | 'sent_at_skew' | 'timestamp' | 'now'

export interface TimestampInputs {
  /** Server receive time, ms since the epoch. */
  readonly now: number
  /** The request's valid `sent_at`, ms since the epoch, or null. */
  readonly sentAt: number | null
  /** The event's `timestamp`, as sent. */
  readonly timestamp: unknown
  /** The event's `offset` (ms before it was sent), as sent. */
  readonly offset: unknown
  /** `properties.$ignore_sent_at === true`. */
  readonly ignoreSentAt: boolean
}

const FUTURE_CUTOFF_MS = 23 * 3600 * 1000
const ZONELESS = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?$/
const HOURS_ONLY_ZONE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?[+-]\d{2})$/

const fromEpochDigits = (digits: number): number => (Math.abs(digits) < 1e11 ? digits * 1000 : digits)

/** Whether the day digits of an ISO text (`YYYY-MM-DD…`) are past the 28th, when every month has the day. */
const lateInMonth = (iso: string): boolean => (iso.charCodeAt(8) - 0x30) * 10 + (iso.charCodeAt(9) - 0x30) > 28

/**
 * Reads a client date leniently, as PostHog does: JavaScript's own parsing, ISO datetimes without
 * a zone as UTC, `+03` zones as `+03:00`, and epoch numbers in seconds or milliseconds. A day its
 * month lacks (`2024-02-30`) does not parse, so the event falls back as for any date that does
 * not, instead of landing on a day the client never named (JavaScript's parser rolls it into the
 * next month). `24:00` stays the next day's midnight, as ISO 8601 and ECMAScript read it.
 */
export const parseDate = (value: unknown): number | null => {
  if (typeof value === 'number') return Number.isFinite(value) ? fromEpochDigits(value) : null
  if (typeof value !== 'string') return null
  // The form every SDK sends, read without the lenient steps.
  if (value.length === 24 && value.charCodeAt(23) === 0x5a && value.charCodeAt(10) === 0x54) {
    const ms = Date.parse(value)
    if (!Number.isNaN(ms)) return lateInMonth(value) && namesMissingDay(value) ? null : ms
  }
  const text = value.trim()
  if (text === '') return null
  if (/^-?\d{9,13}$/.test(text)) return fromEpochDigits(Number(text))
  let normalised = text
  if (ZONELESS.test(text)) normalised = `${text.replace(' ', 'T')}Z`
  else if (HOURS_ONLY_ZONE.test(text)) normalised = `${text}:00`
  const ms = Date.parse(normalised)
  return Number.isNaN(ms) || namesMissingDay(text) ? null : ms
}

/** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z. */
const YEAR_0 = -62_167_219_200_000
const YEAR_10000 = 253_402_300_800_000

const inRange = (ms: number): boolean => ms >= YEAR_0 && ms < YEAR_10000

/**
 * The request's `sent_at`: the batch's ISO `sent_at`, else the `_` query parameter in
 * milliseconds, which only counts after 2020 (older SDKs sent seconds there).
 */
export const requestSentAt = (batchSentAt: unknown, queryUnderscore: unknown): number | null => {
  if (batchSentAt !== undefined && batchSentAt !== null) {
    const parsed = typeof batchSentAt === 'string' ? parseDate(batchSentAt) : null
    if (parsed !== null && inRange(parsed)) return parsed
  }
  const raw = typeof queryUnderscore === 'string' && /^\d+$/.test(queryUnderscore) ? Number(queryUnderscore)
    : typeof queryUnderscore === 'number' ? queryUnderscore : null
  if (raw === null || !Number.isFinite(raw)) return null
  return inRange(raw) && new Date(raw).getUTCFullYear() > 2020 ? raw : null
}

/**
 * PostHog's event time: a client `timestamp` corrected by the clock skew the request's `sent_at`
 * reveals (`now + (timestamp − sent_at)`), or taken as is without a `sent_at`; a non-zero `offset`
 * overrides both (`now − offset`); nothing at all means `now`. A result more than 23 hours ahead
 * of `now`, or outside years 0–9999, becomes `now`.
 */
export const eventTimestamp = (inputs: TimestampInputs): { ms: number; source: TimestampSource } => {
  const { now } = inputs
  const sentAt = inputs.ignoreSentAt ? null : inputs.sentAt
  let ms = now
  let source: TimestampSource = 'now'
  if (inputs.timestamp !== undefined && inputs.timestamp !== null) {
    const parsed = parseDate(inputs.timestamp)
    if (parsed !== null) {
      if (sentAt !== null) {
        ms = now + (parsed - sentAt)
        source = 'sent_at_skew'
      } else {
        ms = parsed
        source = 'timestamp'
      }
    }
  }
  const { offset } = inputs
  if (typeof offset === 'number' && Number.isFinite(offset) && Math.trunc(offset) !== 0) {
    ms = now - Math.trunc(offset)
    source = 'offset'
  }
  if (ms - now > FUTURE_CUTOFF_MS || !inRange(ms)) ms = now
  return { ms, source }
}
