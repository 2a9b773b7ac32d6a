import { SECONDS_PER_DAY, civilFromDays, daysFromCivil, daysInMonth } from './calendar.js'

/** An instant in UTC: whole seconds since the epoch plus the microseconds PostHog keeps. */
export interface UtcDateTime {
  readonly seconds: number
  readonly micros: number
}

/** Python's datetime range, which bounds what PostHog can store. */
const MIN_YEAR = 1
const MAX_YEAR = 9999

// The forms Django's parse_datetime accepts: a date alone (midnight), or a date and time with an
// optional fraction and offset; a value without an offset is taken as UTC (PostHog's TIME_ZONE).
const DATE_TIME = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/

const offsetSeconds = (offset: string | undefined): number | null => {
  if (offset === undefined || offset === 'Z') return 0
  const sign = offset.startsWith('-') ? -1 : 1
  const digits = offset.slice(1).replace(':', '')
  const hours = Number(digits.slice(0, 2))
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0
  if (hours > 23 || minutes > 59) return null
  return sign * (hours * 3600 + minutes * 60)
}

/** Parses an ISO 8601 date-time into UTC, or null when PostHog would refuse it. */
export const parseUtcDateTime = (value: string): UtcDateTime | null => {
  const match = DATE_TIME.exec(value)
  if (!match) return null
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', offset] = match
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number]
  if (year < MIN_YEAR || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null
  if (hour > 23 || minute > 59 || second > 59) return null
  const shift = offsetSeconds(offset)
  if (shift === null) return null
  const seconds = daysFromCivil(year, month, day) * SECONDS_PER_DAY + hour * 3600 + minute * 60 + second - shift
  const utcYear = civilFromDays(Math.floor(seconds / SECONDS_PER_DAY)).year
  if (utcYear < MIN_YEAR || utcYear > MAX_YEAR) return null
  return { seconds, micros: Number(fraction.slice(0, 6).padEnd(6, '0')) }
}

const pad = (value: number, width: number): string => String(value).padStart(width, '0')

/** PostHog's rendering: `2022-01-01T00:00:00Z`, with `.ffffff` only when there are microseconds. */
export const formatUtcDateTime = ({ seconds, micros }: UtcDateTime): string => {
  const days = Math.floor(seconds / SECONDS_PER_DAY)
  const ofDay = seconds - days * SECONDS_PER_DAY
  const { year, month, day } = civilFromDays(days)
  const time = `${pad(Math.floor(ofDay / 3600), 2)}:${pad(Math.floor((ofDay % 3600) / 60), 2)}:${pad(ofDay % 60, 2)}`
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${time}${micros > 0 ? `.${pad(micros, 6)}` : ''}Z`
}

/** An accepted date-time in the form PostHog echoes it, or null when it would be refused. */
export const normalizeUtcDateTime = (value: string): string | null => {
  const parsed = parseUtcDateTime(value)
  return parsed && formatUtcDateTime(parsed)
}
