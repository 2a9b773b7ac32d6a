import { QueryRefused } from '../errors.js'
import { endOfDay, endOfHour, shiftLocal, startOfDay, startOfHour, DAY, type Shift } from './calendar.js'
import { parseCompareTo, parseDateInput } from './date-input.js'
import { fixedRange, type DateRangeInput, type RangeContext, type ResolvedRange } from './date-range.js'
import { ownValue } from '../../kernel/own-value.js'

const PRESETS: Readonly<Record<string, Shift>> = { dStart: { days: 1 }, wStart: { weeks: 1 }, mStart: { months: 1 }, yStart: { years: 1 } }

const daysOfFrom = (range: DateRangeInput): number | null => {
  if (range.date_from === undefined || range.date_from === null) return 7
  const input = parseDateInput(range.date_from)
  return input?.kind === 'relative' && input.unit === 'd' ? (input.shift.days ?? null) : null
}

const relativeTo = (range: DateRangeInput): boolean => {
  if (range.date_to === undefined || range.date_to === null) return false
  const input = parseDateInput(range.date_to)
  return input?.kind === 'relative' && Object.keys(input.shift).some((key) => key !== 'set')
}

/**
 * The previous period PostHog compares with: as long as the current one and directly before it,
 * aligned to whole hours or days. "Last 7 days" (and 14, 21…) is one day longer than its name, so
 * the previous period is moved one day later to line weeks up, as PostHog does.
 */
const previousPeriod = (current: ResolvedRange, range: DateRangeInput): [number, number] => {
  const length = current.to - current.from
  let from = current.from - length
  if (current.interval === 'hour' || current.interval === 'minute') {
    from = startOfHour(from - (from % DAY) + (current.from % DAY))
    return [from, endOfHour(from + length)]
  }
  from = startOfDay(from)
  const days = daysOfFrom(range)
  if (current.interval === 'day' && days !== null && days > 0 && days % 7 === 0 && !relativeTo(range)) from += DAY
  return [from, endOfDay(from + length)]
}

/** The range of the compared period: `compare_to` shifts the current range; otherwise the previous period. */
export const compareRange = (
  range: DateRangeInput | null | undefined, current: ResolvedRange, compareTo: string | null | undefined, context: RangeContext,
): ResolvedRange => {
  const given = range ?? {}
  if (compareTo !== undefined && compareTo !== null) {
    const shift = parseCompareTo(compareTo)
    if (shift === null) throw new QueryRefused(`Invalid compare_to: ${JSON.stringify(compareTo)}.`, 'invalid_input', 'compare_to')
    return fixedRange(shiftLocal(current.from, shift, -1), shiftLocal(current.to, shift, -1), current.interval, context)
  }
  const preset = typeof given.date_from === 'string' && (given.date_to === undefined || given.date_to === null) ? ownValue(PRESETS, given.date_from) : undefined
  if (preset) return fixedRange(shiftLocal(current.from, preset, -1), current.from - 1, current.interval, context)
  if (given.date_from === 'all') {
    const to = current.from - 1
    return fixedRange(to - (current.to - current.from), to, current.interval, context)
  }
  const [from, to] = previousPeriod(current, given)
  return fixedRange(from, to, current.interval, context)
}
