import { daysInMonth, localOf, type Shift } from './calendar.js'

/** A date string of a query, parsed: a relative offset from "now", or a fixed time. */
export type DateInput =
  | { readonly kind: 'relative'; readonly shift: Shift; readonly unit: RelativeUnit; readonly position: 'Start' | 'End' | null }
  | { readonly kind: 'absolute'; readonly local: number; readonly hasTime: boolean }
  /** Absolute with an explicit offset: an instant. */
  | { readonly kind: 'instant'; readonly instant: number; readonly hasTime: true }

/** h hours, d days, w weeks, m months, q quarters (13 weeks), y years, M minutes, s seconds. */
export type RelativeUnit = 'h' | 'd' | 'w' | 'm' | 'q' | 'y' | 'M' | 's'

const RELATIVE = /^-?(\d+)?([hdwmqyMs])(Start|End)?$/
const ISO = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,6}))?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/
const MAX_AMOUNT = 100_000

const positionShift = (unit: RelativeUnit, position: 'Start' | 'End' | null): Shift['set'] => {
  if (position === null) return undefined
  const start = position === 'Start'
  switch (unit) {
    case 'h': return start ? { minute: 0, second: 0, millisecond: 0 } : { minute: 59, second: 59, millisecond: 999 }
    case 'd': return start ? { hour: 0, minute: 0, second: 0, millisecond: 0 } : { hour: 23, minute: 59, second: 59, millisecond: 999 }
    case 'm': return { day: start ? 1 : 31 }
    case 'y': return start ? { month: 1, day: 1 } : { day: 31 }
    default: return undefined // PostHog pins nothing for weeks, quarters, minutes or seconds
  }
}

const shiftFor = (unit: RelativeUnit, amount: number | null, position: 'Start' | 'End' | null): Shift => {
  const set = positionShift(unit, position)
  const base: Shift = set === undefined ? {} : { set }
  if (amount === null) return base
  switch (unit) {
    case 'h': return { ...base, hours: amount }
    case 'd': return { ...base, days: amount }
    case 'w': return { ...base, weeks: amount }
    case 'm': return { ...base, months: amount }
    case 'q': return { ...base, weeks: 13 * amount }
    case 'y': return { ...base, years: amount }
    case 'M': return { ...base, minutes: amount }
    case 's': return { ...base, seconds: amount }
  }
}

const zoneOffsetMs = (zone: string): number => {
  if (zone === 'Z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0')) * 60_000
}

const parseIso = (text: string): DateInput | null => {
  const m = ISO.exec(text)
  if (!m) return null
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null
  const hour = Number(m[4] ?? 0)
  const minute = Number(m[5] ?? 0)
  const second = Number(m[6] ?? 0)
  if (hour > 23 || minute > 59 || second > 59) return null
  const ms = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0
  const local = localOf(year, month, day, hour, minute, second, ms)
  if (m[8] !== undefined) return { kind: 'instant', instant: local - zoneOffsetMs(m[8]), hasTime: true }
  return { kind: 'absolute', local, hasTime: m[4] !== undefined }
}

/**
 * Reads a `date_from`/`date_to` string as PostHog does (ISO dates and datetimes, naive ones in
 * the project's zone; or `-7d`, `-1mStart`, `yStart`…), or null when it is neither. PostHog
 * itself falls back to "now" for unreadable text; Hedgelog refuses it instead.
 */
export const parseDateInput = (text: string): DateInput | null => {
  const relative = RELATIVE.exec(text)
  if (relative) {
    const amount = relative[1] === undefined ? null : Number(relative[1])
    if (amount !== null && amount > MAX_AMOUNT) return null
    const unit = relative[2] as RelativeUnit
    const position = (relative[3] ?? null) as 'Start' | 'End' | null
    return { kind: 'relative', shift: shiftFor(unit, amount, position), unit, position }
  }
  return parseIso(text)
}

/** A compare offset (`-1w`, `-14d`, `-1y`…), as a shift to subtract; null when unreadable. */
export const parseCompareTo = (text: string): Shift | null => {
  const input = parseDateInput(text)
  return input?.kind === 'relative' ? input.shift : null
}
