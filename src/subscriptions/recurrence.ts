import { SECONDS_PER_DAY, civilFromDays, daysFromCivil, daysInMonth, isLeapYear, weekdayOf } from './calendar.js'
import { SUBSCRIPTION_WEEKDAYS, isSubscriptionFrequency, isSubscriptionWeekday, type Schedule, type SubscriptionFrequency } from './schedule.js'
import { formatUtcDateTime, parseUtcDateTime } from './utc-datetime.js'

/**
 * The recurrence PostHog builds from a subscription (dateutil's rrule with FREQ, INTERVAL, COUNT,
 * UNTIL, BYDAY and BYSETPOS, weeks starting on Monday), with dateutil's defaults already applied:
 * without BYDAY a weekly rule takes the start's weekday, a monthly rule the start's day of the
 * month and a yearly rule the start's month and day.
 */
interface Rule {
  readonly frequency: SubscriptionFrequency
  readonly interval: number
  readonly weekdays: ReadonlySet<number> | null
  readonly setpos: number | null
  readonly start: number
  readonly startDay: number
  readonly timeOfDay: number
  readonly count: number | null
  readonly until: number | null
}

const MAX_YEAR = 9999

// The days a rule can pick repeat with the Gregorian cycle: every 7 days, every full week, every
// 4800 months, every 400 years. A run of empty periods this long therefore never ends.
const MAX_EMPTY_PERIODS = 4800

/** PostHog never schedules a delivery sooner than this from now: the scheduler may run early. */
export const DELIVERY_LEAD_SECONDS = 15 * 60

const isInteger = (value: unknown): value is number => Number.isInteger(value)

const compileRule = (schedule: Schedule): Rule | null => {
  const { frequency, interval, byweekday, bysetpos, count } = schedule
  if (!isSubscriptionFrequency(frequency) || !isInteger(interval) || interval < 1) return null
  if (count !== null && !isInteger(count)) return null
  const start = parseUtcDateTime(schedule.start_date)
  const until = schedule.until_date === null ? null : parseUtcDateTime(schedule.until_date)
  if (start === null || (schedule.until_date !== null && until === null)) return null
  if (byweekday !== null && !byweekday.every(isSubscriptionWeekday)) return null
  const weekdays = byweekday && byweekday.length > 0
    ? new Set(byweekday.map((name) => SUBSCRIPTION_WEEKDAYS.indexOf(name as (typeof SUBSCRIPTION_WEEKDAYS)[number])))
    : null
  // PostHog passes bysetpos only alongside a weekday list; dateutil refuses 0 and |n| > 366.
  const setpos = weekdays ? bysetpos : null
  if (setpos !== null && (!isInteger(setpos) || setpos === 0 || Math.abs(setpos) > 366)) return null
  const startDay = Math.floor(start.seconds / SECONDS_PER_DAY)
  return {
    frequency,
    interval,
    weekdays: weekdays ?? (frequency === 'weekly' ? new Set([weekdayOf(startDay)]) : null),
    setpos,
    start: start.seconds,
    startDay,
    timeOfDay: start.seconds - startDay * SECONDS_PER_DAY,
    count,
    until: until && until.seconds,
  }
}

const daysOnWeekdays = (first: number, last: number, weekdays: ReadonlySet<number>): number[] => {
  const days: number[] = []
  for (let day = first; day <= last; day += 1) if (weekdays.has(weekdayOf(day))) days.push(day)
  return days
}

/** The candidate days of each period (a day, a week, a month or a year), before BYSETPOS. */
function* periods(rule: Rule): Generator<number[]> {
  const { interval, weekdays, startDay } = rule
  const start = civilFromDays(startDay)
  switch (rule.frequency) {
    case 'daily':
      for (let day = startDay; civilFromDays(day).year <= MAX_YEAR; day += interval) {
        yield weekdays === null || weekdays.has(weekdayOf(day)) ? [day] : []
      }
      return
    case 'weekly': {
      // The first period runs from the start to the end of its week; later ones are whole weeks.
      const all = weekdays ?? new Set<number>()
      let monday = startDay - weekdayOf(startDay)
      yield daysOnWeekdays(startDay, monday + 6, all)
      for (monday += 7 * interval; civilFromDays(monday).year <= MAX_YEAR; monday += 7 * interval) {
        yield daysOnWeekdays(monday, monday + 6, all)
      }
      return
    }
    case 'monthly':
      for (let index = start.year * 12 + start.month - 1; Math.floor(index / 12) <= MAX_YEAR; index += interval) {
        const year = Math.floor(index / 12)
        const month = (index % 12) + 1
        const first = daysFromCivil(year, month, 1)
        const length = daysInMonth(year, month)
        if (weekdays) yield daysOnWeekdays(first, first + length - 1, weekdays)
        else yield start.day <= length ? [first + start.day - 1] : []
      }
      return
    case 'yearly':
      for (let year = start.year; year <= MAX_YEAR; year += interval) {
        const first = daysFromCivil(year, 1, 1)
        if (weekdays) yield daysOnWeekdays(first, first + (isLeapYear(year) ? 365 : 364), weekdays)
        else yield start.day <= daysInMonth(year, start.month) ? [daysFromCivil(year, start.month, start.day)] : []
      }
      return
  }
}

const pickPosition = (days: readonly number[], position: number): number[] => {
  const day = days[position > 0 ? position - 1 : days.length + position]
  return day === undefined ? [] : [day]
}

/** Occurrence instants in seconds, in order, exactly as dateutil yields them. */
function* occurrenceSeconds(rule: Rule): Generator<number> {
  let remaining = rule.count
  let emptyPeriods = 0
  for (const days of periods(rule)) {
    // BYSETPOS counts over the whole period, days before the start included.
    const chosen = rule.setpos === null ? days : pickPosition(days, rule.setpos)
    if (chosen.length === 0) {
      if (++emptyPeriods > MAX_EMPTY_PERIODS) return
      continue
    }
    emptyPeriods = 0
    for (const day of chosen) {
      const at = day * SECONDS_PER_DAY + rule.timeOfDay
      if (rule.until !== null && at > rule.until) return
      if (at < rule.start) continue
      // COUNT counts only occurrences from the start on.
      if (remaining !== null) {
        if (remaining <= 0) return
        remaining -= 1
      }
      yield at
    }
  }
}

/**
 * Every delivery time of a schedule, from `start_date` on, formatted as PostHog returns dates.
 * A schedule that `scheduleProblems` would refuse has none.
 */
export function* occurrences(schedule: Schedule): Generator<string> {
  const rule = compileRule(schedule)
  if (rule === null) return
  for (const at of occurrenceSeconds(rule)) yield formatUtcDateTime({ seconds: at, micros: 0 })
}

const instantOf = (value: string): number => {
  const parsed = parseUtcDateTime(value)
  if (parsed === null) throw new RangeError(`not an ISO 8601 date-time: ${value}`)
  return parsed.seconds
}

/**
 * PostHog's `next_delivery_date`: the first occurrence strictly after the later of `from` (the
 * previous delivery date, when advancing after a delivery) and `now` plus 15 minutes; null when
 * the schedule has no such occurrence (count used up, until passed) or would be refused.
 * Throws a RangeError when `now` or `from` is not a date-time.
 */
export const nextDeliveryDate = (schedule: Schedule, now: string, from: string | null = null): string | null => {
  // Occurrences fall on whole seconds, so comparing against the floored second is exact.
  const earliest = instantOf(now) + DELIVERY_LEAD_SECONDS
  const after = from === null ? earliest : Math.max(earliest, instantOf(from))
  const rule = compileRule(schedule)
  if (rule === null) return null
  for (const at of occurrenceSeconds(rule)) {
    if (at > after) return formatUtcDateTime({ seconds: at, micros: 0 })
  }
  return null
}

/**
 * The last occurrence at or before `at`, or null when none has come yet: the one a late
 * scheduler sends for a run of missed occurrences. Throws a RangeError when `at` is not a date-time.
 */
export const latestOccurrence = (schedule: Schedule, at: string): string | null => {
  const limit = instantOf(at)
  const rule = compileRule(schedule)
  if (rule === null) return null
  let latest: number | null = null
  for (const occurrence of occurrenceSeconds(rule)) {
    if (occurrence > limit) break
    latest = occurrence
  }
  return latest === null ? null : formatUtcDateTime({ seconds: latest, micros: 0 })
}
