/**
 * Calendar arithmetic on local times (a zone's wall clock written as UTC milliseconds; see
 * zone.ts). Everything here is exact: no zone is involved until a local time becomes an instant.
 */

export const MINUTE = 60_000
export const HOUR = 3_600_000
export const DAY = 86_400_000

export interface Fields {
  readonly year: number
  readonly month: number // 1–12
  readonly day: number
  readonly hour: number
  readonly minute: number
  readonly second: number
  readonly millisecond: number
  readonly weekday: number // 0 Sunday … 6 Saturday
}

export const fieldsOf = (local: number): Fields => {
  const date = new Date(local)
  return {
    year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(),
    hour: date.getUTCHours(), minute: date.getUTCMinutes(), second: date.getUTCSeconds(),
    millisecond: date.getUTCMilliseconds(), weekday: date.getUTCDay(),
  }
}

/** A local time from fields; out-of-range fields roll over as `Date.UTC` rolls them. */
export const localOf = (year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number => {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  date.setUTCHours(hour, minute, second, ms)
  return date.getTime()
}

export const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate()

export const startOfMinute = (local: number): number => local - (((local % MINUTE) + MINUTE) % MINUTE)
export const startOfHour = (local: number): number => local - (((local % HOUR) + HOUR) % HOUR)
export const startOfDay = (local: number): number => local - (((local % DAY) + DAY) % DAY)
export const endOfDay = (local: number): number => startOfDay(local) + DAY - 1
export const endOfHour = (local: number): number => startOfHour(local) + HOUR - 1
export const endOfMinute = (local: number): number => startOfMinute(local) + MINUTE - 1

export const startOfMonth = (local: number): number => {
  const { year, month } = fieldsOf(local)
  return localOf(year, month, 1)
}

/** The start of the week holding `local`; weeks start on Sunday (0) or Monday (1). */
export const startOfWeek = (local: number, weekStartDay: 0 | 1): number => {
  const day = startOfDay(local)
  const back = (fieldsOf(day).weekday - weekStartDay + 7) % 7
  return day - back * DAY
}

/** A calendar shift with the meaning of Python's `relativedelta`: absolute fields, then relative ones. */
export interface Shift {
  readonly years?: number
  readonly months?: number
  readonly weeks?: number
  readonly days?: number
  readonly hours?: number
  readonly minutes?: number
  readonly seconds?: number
  /** Absolute fields, set before the relative part is added (day clamped to the month's length). */
  readonly set?: { readonly month?: number; readonly day?: number; readonly hour?: number; readonly minute?: number; readonly second?: number; readonly millisecond?: number }
}

/**
 * Applies a shift (`sign` −1 subtracts its relative part, as `dt - relativedelta(…)` does):
 * years and months move the calendar month and clamp the day; weeks, days, hours, minutes and
 * seconds are then added to the wall clock.
 */
export const shiftLocal = (local: number, shift: Shift, sign: 1 | -1 = 1): number => {
  const f = fieldsOf(local)
  const set = shift.set ?? {}
  let year = f.year + sign * (shift.years ?? 0)
  let month = (set.month ?? f.month) + sign * (shift.months ?? 0)
  year += Math.floor((month - 1) / 12)
  month = ((((month - 1) % 12) + 12) % 12) + 1
  const day = Math.min(set.day ?? f.day, daysInMonth(year, month))
  const base = localOf(year, month, day, set.hour ?? f.hour, set.minute ?? f.minute, set.second ?? f.second, set.millisecond ?? f.millisecond)
  const fixed = ((shift.weeks ?? 0) * 7 + (shift.days ?? 0)) * DAY + (shift.hours ?? 0) * HOUR + (shift.minutes ?? 0) * MINUTE + (shift.seconds ?? 0) * 1000
  return base + sign * fixed
}

export const addMonths = (local: number, months: number): number => shiftLocal(local, { months })
