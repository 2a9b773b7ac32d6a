import { QueryRefused } from '../errors.js'
import {
  DAY, HOUR, MINUTE, endOfDay, endOfHour, endOfMinute, shiftLocal, startOfDay, startOfHour, startOfMinute, startOfMonth,
  startOfWeek, addMonths, type Shift,
} from './calendar.js'
import { parseDateInput, type DateInput } from './date-input.js'
import type { Zone } from './zone.js'

export type Interval = 'minute' | 'hour' | 'day' | 'week' | 'month'
export type WeekStartDay = 0 | 1

/** What a date range is resolved against: the environment's zone and week start, "now", and the earliest event (for `all`). */
export interface RangeContext {
  readonly zone: Zone
  readonly weekStartDay: WeekStartDay
  readonly now: number
  /** The environment's earliest event, or null when it has none. */
  readonly earliestEvent: number | null
}

export interface DateRangeInput {
  readonly date_from?: string | null | undefined
  readonly date_to?: string | null | undefined
  readonly explicitDate?: boolean | null | undefined
}

/** A query's range, resolved: what PostHog's `QueryDateRange` computes. */
export interface ResolvedRange {
  readonly interval: Interval
  /** date_from and date_to as resolved, local times (see zone.ts). */
  readonly from: number
  readonly to: number
  /** Events count when `filterFrom <= timestamp <= filterTo` (instants). */
  readonly filterFrom: number
  readonly filterTo: number
  /** Local start of every bucket, in order. */
  readonly buckets: readonly number[]
}

/** A query whose buckets would pass this many is refused before it reads any event. */
export const MAX_BUCKETS = 20_000
const DEFAULT_DAYS_BACK = 7
const ALL_FALLBACK = Date.UTC(2015, 0, 1)

/** The start of the bucket holding a local time. */
export const alignLocal = (local: number, interval: Interval, weekStartDay: WeekStartDay): number => {
  switch (interval) {
    case 'minute': return startOfMinute(local)
    case 'hour': return startOfHour(local)
    case 'day': return startOfDay(local)
    case 'week': return startOfWeek(local, weekStartDay)
    case 'month': return startOfMonth(local)
  }
}

export const nextBucket = (local: number, interval: Interval): number => {
  switch (interval) {
    case 'minute': return local + MINUTE
    case 'hour': return local + HOUR
    case 'day': return shiftLocal(local, { days: 1 })
    case 'week': return shiftLocal(local, { weeks: 1 })
    case 'month': return addMonths(local, 1)
  }
}

const SHORTEST: Record<Interval, number> = { minute: MINUTE, hour: HOUR, day: DAY - HOUR, week: 7 * DAY - HOUR, month: 28 * DAY }

export const bucketsBetween = (from: number, to: number, interval: Interval, weekStartDay: WeekStartDay): number[] => {
  const first = alignLocal(from, interval, weekStartDay)
  if ((to - first) / SHORTEST[interval] > MAX_BUCKETS) {
    throw new QueryRefused(`This date range is too long for the ${interval} interval: it would have more than ${MAX_BUCKETS} points. Pick a shorter range or a longer interval.`, 'invalid_input', 'dateRange')
  }
  const out: number[] = []
  for (let start = first; start <= to; start = nextBucket(start, interval)) out.push(start)
  return out
}

const parseOrRefuse = (text: string, attr: string): DateInput => {
  const input = parseDateInput(text)
  if (input === null) throw new QueryRefused(`Invalid date: ${JSON.stringify(text)}.`, 'invalid_input', attr)
  return input
}

const localOfInput = (input: Exclude<DateInput, { kind: 'relative' }>, zone: Zone): number =>
  input.kind === 'instant' ? zone.toLocal(input.instant) : input.local

const usesHours = (input: DateInput): boolean => input.kind === 'relative' && (input.unit === 'h' || input.unit === 'M' || input.unit === 's')

/** date_from as a local time, with PostHog's rounding of relative values. */
const resolveFrom = (range: DateRangeInput, interval: Interval, context: RangeContext): { local: number; input: DateInput | null } => {
  const nowLocal = context.zone.toLocal(context.now)
  const text = range.date_from
  if (text === undefined || text === null) return { local: shiftLocal(startOfDay(nowLocal), { days: DEFAULT_DAYS_BACK }, -1), input: null }
  if (text === 'all') return { local: context.zone.toLocal(context.earliestEvent ?? ALL_FALLBACK), input: null }
  const input = parseOrRefuse(text, 'date_from')
  if (input.kind !== 'relative') return { local: localOfInput(input, context.zone), input }
  const shifted = shiftLocal(nowLocal, input.shift, -1)
  if (range.explicitDate || interval === 'minute') return { local: shifted, input }
  return { local: usesHours(input) ? startOfHour(shifted) : startOfDay(shifted), input }
}

/** date_to as a local time: the end of its day, or of its hour for hourly ranges ending "now". */
const resolveTo = (range: DateRangeInput, interval: Interval, context: RangeContext): number => {
  const nowLocal = context.zone.toLocal(context.now)
  const text = range.date_to
  let local = nowLocal
  let relative = true
  if (text !== undefined && text !== null) {
    const input = parseOrRefuse(text, 'date_to')
    if (input.kind === 'relative') {
      const shifted = shiftLocal(nowLocal, input.shift, -1)
      local = input.shift.hours !== undefined ? startOfHour(shifted) : startOfDay(shifted)
    } else {
      local = localOfInput(input, context.zone)
      relative = false
    }
  }
  if (range.explicitDate) return local
  if (interval === 'hour') return relative ? endOfHour(local) : local
  if (interval === 'minute') return relative ? endOfMinute(local) : local
  return endOfDay(local)
}

/** Where the event filter starts: the start of date_from's bucket (its day for weeks), unless the range is explicit. */
const filterStart = (from: number, input: DateInput | null, range: DateRangeInput, interval: Interval, weekStartDay: WeekStartDay): number => {
  if (range.explicitDate) return from
  if (input?.kind === 'relative' && (interval === 'hour' || interval === 'minute' || (interval === 'day' && usesHours(input)))) return from
  return interval === 'week' ? startOfDay(from) : alignLocal(from, interval, weekStartDay)
}

/** Resolves a query's date range against the environment and "now" (PostHog's QueryDateRange). */
export const resolveRange = (range: DateRangeInput | null | undefined, interval: Interval, context: RangeContext): ResolvedRange => {
  const given = range ?? {}
  const { local: from, input } = resolveFrom(given, interval, context)
  const to = resolveTo(given, interval, context)
  return fixedRange(from, to, interval, context, filterStart(from, input, given, interval, context.weekStartDay))
}

/** A range between two resolved local times. */
export const fixedRange = (
  from: number, to: number, interval: Interval, context: RangeContext,
  filterFromLocal = interval === 'week' ? startOfDay(from) : alignLocal(from, interval, context.weekStartDay),
): ResolvedRange => ({
  interval, from, to,
  filterFrom: context.zone.toInstant(filterFromLocal),
  filterTo: context.zone.toInstant(to),
  buckets: bucketsBetween(from, to, interval, context.weekStartDay),
})

export type { Shift }
