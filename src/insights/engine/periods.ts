import { compareRange } from '../time/compare-range.js'
import { resolveRange, type Interval, type RangeContext, type ResolvedRange } from '../time/date-range.js'
import { isoDateTime } from '../time/labels.js'
import { openZone } from '../time/zone.js'
import type { DateRange, CompareFilter } from '../schema/filters.js'
import type { QueryInput, QuerySource } from './data.js'

export type CompareLabel = 'current' | 'previous'

export interface Periods {
  readonly context: RangeContext
  readonly current: ResolvedRange
  /** The current period, then the compared one when the query compares. */
  readonly periods: readonly (readonly [ResolvedRange, CompareLabel | null])[]
  readonly resolvedDateRange: { readonly date_from: string; readonly date_to: string }
}

/**
 * Resolves a query's period(s) in the environment's zone at `input.now`, given the environment's
 * earliest event (read only for `all`; null otherwise or when there is none).
 */
export const settlePeriods = (
  dateRange: DateRange | null | undefined, interval: Interval, compareFilter: CompareFilter | null | undefined,
  input: QueryInput, earliestEvent: number | null,
): Periods => {
  const zone = openZone(input.environment.timezone)
  const context: RangeContext = { zone, weekStartDay: input.environment.weekStartDay, now: input.now, earliestEvent }
  const current = resolveRange(dateRange, interval, context)
  const periods: [ResolvedRange, CompareLabel | null][] = compareFilter?.compare === true
    ? [[current, 'current'], [compareRange(dateRange, current, compareFilter.compare_to, context), 'previous']]
    : [[current, null]]
  return { context, current, periods, resolvedDateRange: { date_from: isoDateTime(current.from, zone), date_to: isoDateTime(current.to, zone) } }
}

/** Resolves a query's period(s) in the environment's zone, reading the earliest event only for `all`. */
export const resolvePeriods = async (
  dateRange: DateRange | null | undefined, interval: Interval, compareFilter: CompareFilter | null | undefined,
  input: QueryInput, source: QuerySource,
): Promise<Periods> => {
  const earliestEvent = dateRange?.date_from === 'all' ? await source.earliestTimestamp() : null
  return settlePeriods(dateRange, interval, compareFilter, input, earliestEvent)
}
