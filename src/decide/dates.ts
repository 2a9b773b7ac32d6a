import { parseF64 } from './values.js'

const HOUR = 3_600_000
const DAY = 24 * HOUR
const MAX_DATE_MS = 8.64e15

/** A relative date as written in a filter: `-7d`, `30d`, `-1y`; the sign is optional, the meaning is always "ago". */
export interface RelativeDate {
  readonly amount: number
  readonly unit: 'h' | 'd' | 'w' | 'm' | 'y'
}

const RELATIVE = /^-?([0-9]+)([hdwmy])$/

export const parseRelativeDate = (text: string): RelativeDate | null => {
  const match = RELATIVE.exec(text)
  if (!match) return null
  const amount = Number(match[1])
  return amount < 10_000 ? { amount, unit: match[2] as RelativeDate['unit'] } : null
}

const isLeap = (year: number): boolean => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeap(year) ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31

/**
 * `now` minus the amount, in UTC. Hours, days and weeks are fixed durations; months and years step
 * back one at a time, clamping the day to the target month's length each step (so 31 March − 2m is
 * 29 January in a leap year), keeping the time of day.
 */
export const resolveRelativeDate = ({ amount, unit }: RelativeDate, nowMs: number): number => {
  if (unit === 'h') return nowMs - amount * HOUR
  if (unit === 'd') return nowMs - amount * DAY
  if (unit === 'w') return nowMs - amount * 7 * DAY
  const now = new Date(nowMs)
  let year = now.getUTCFullYear()
  let month = now.getUTCMonth() + 1
  let day = now.getUTCDate()
  for (let step = 0; step < amount; step++) {
    if (unit === 'm') {
      month -= 1
      if (month === 0) { month = 12; year -= 1 }
    } else {
      year -= 1
    }
    day = Math.min(day, daysInMonth(year, month))
  }
  const timeOfDay = nowMs - Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const start = new Date(0)
  start.setUTCFullYear(year, month - 1, day)
  return start.getTime() + timeOfDay
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/
const BARE_DATE = /^([+-]?\d{4,})-(\d{1,2})-(\d{1,2})$/
const NAIVE = /^([+-]?\d{4,})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d+))?)?$/
const EXPLICIT_ZONE = /(?:[Zz]|GMT|UTC|[+-]\d{2}:?\d{2})$/

const millisOf = (fraction: string | undefined): number => (fraction ? Number(`0.${fraction}`) * 1000 : 0)

/** Milliseconds for a UTC wall clock, or null when a field is out of range (no rollover). */
const utcInstant = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): number | null => {
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 60) return null
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  date.setUTCHours(h, mi, Math.min(s, 59), 0)
  return date.getTime() + (s === 60 ? 1000 : 0) + ms
}

const zoneOffsetMs = (zone: string): number => {
  if (zone === 'Z' || zone === 'z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  return sign * (Number(zone.slice(1, 3)) * HOUR + Number(zone.slice(4, 6)) * 60_000)
}

/** The absolute (non-relative) date forms the server accepts; naive times are UTC. */
const parseAbsoluteDate = (text: string): number | null => {
  let m = RFC3339.exec(text)
  if (m) {
    const local = utcInstant(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!, millisOf(m[7]))
    return local === null ? null : local - zoneOffsetMs(m[8]!)
  }
  m = BARE_DATE.exec(text)
  if (m) return utcInstant(+m[1]!, +m[2]!, +m[3]!)
  m = NAIVE.exec(text)
  if (m) return utcInstant(+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +(m[6] ?? 0), millisOf(m[7]))
  // Lenient fallback for other spellings ("May 6 2021", RFC 2822); a zone-less one is read as UTC.
  const parsed = Date.parse(EXPLICIT_ZONE.test(text) ? text : `${text} UTC`)
  return Number.isNaN(parsed) ? null : parsed
}

/** A date string as the server reads it: a relative date first, then the absolute forms. */
export const parseDateString = (text: string, nowMs: number): number | null => {
  const date = compileFilterDate(text)
  return date === null ? null : resolveFilterDate(date, nowMs)
}

const fromSeconds = (seconds: number): number | null => {
  const ms = seconds * 1000
  return Number.isFinite(ms) && Math.abs(ms) <= MAX_DATE_MS ? ms : null
}

/** A filter's date value, parsed once: a fixed instant, a relative date, or unparseable (null). */
export type FilterDate = { readonly fixed: number } | { readonly relative: RelativeDate } | null

/**
 * A person/group property string as a date, before any clock is read: numeric strings are Unix
 * seconds (fractions allowed), then a relative date, then the absolute forms; null when none.
 */
export const parsePropertyDate = (text: string): FilterDate => {
  const number = parseF64(text)
  if (number !== null) {
    const fixed = fromSeconds(number)
    return fixed === null ? null : { fixed }
  }
  return compileFilterDate(text)
}

/**
 * A person/group property as a date: numbers are Unix seconds, strings as `parsePropertyDate`
 * reads them; anything else is no date.
 */
export const propertyDate = (value: unknown, nowMs: number): number | null => {
  if (typeof value === 'number') return fromSeconds(value)
  if (typeof value !== 'string') return null
  const date = parsePropertyDate(value)
  return date === null ? null : resolveFilterDate(date, nowMs)
}

export const compileFilterDate = (value: unknown): FilterDate => {
  if (typeof value !== 'string') return null
  const relative = parseRelativeDate(value)
  if (relative) return { relative }
  const fixed = parseAbsoluteDate(value)
  return fixed === null ? null : { fixed }
}

export const resolveFilterDate = (date: Exclude<FilterDate, null>, nowMs: number): number =>
  'fixed' in date ? date.fixed : resolveRelativeDate(date.relative, nowMs)
