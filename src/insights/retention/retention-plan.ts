import type { QueryInput, QuerySource } from '../engine/data.js'
import { QueryRefused } from '../errors.js'
import { compileProperties, noNeeds, type Needs, type RowTest } from '../properties/compile-filters.js'
import type { EventMatcher } from '../properties/event-matcher.js'
import type { RowContext } from '../properties/row-context.js'
import type { Breakdown } from '../schema/filters.js'
import type { RetentionEntity, RetentionQuery } from '../schema/insight-queries.js'
import { shiftLocal } from '../time/calendar.js'
import { alignLocal, nextBucket, resolveRange, type Interval } from '../time/date-range.js'
import { openZone, type Zone } from '../time/zone.js'
import { breakdownText } from '../trends/breakdown-values.js'

export type RetentionPeriod = 'hour' | 'day' | 'week' | 'month'

export interface RetentionPlan {
  readonly period: RetentionPeriod
  /** Values per cohort row: the cohort interval and the intervals after it. */
  readonly lookahead: number
  readonly target: EventMatcher
  readonly returning: EventMatcher
  readonly firstTime: boolean
  readonly cumulative: boolean
  readonly minimumOccurrences: number
  /** The query's own filters and the test-account filters, for every event. */
  readonly test: RowTest
  readonly actorOf: (row: RowContext) => string | null
  /** A row's breakdown value ('' for none), or null without a breakdown. */
  readonly breakdown: ((row: RowContext) => string) | null
  readonly limit: number
  readonly needs: Needs
}

/** The cohort intervals: local starts, and the instants events must lie between (`to` exclusive). */
export interface RetentionRange {
  readonly zone: Zone
  readonly starts: readonly number[]
  readonly from: number
  readonly to: number
}

const DEFAULT_ENTITY: RetentionEntity = { id: '$pageview', type: 'events' }
/** PostHog's newest runner falls back to 7 intervals. */
const DEFAULT_TOTAL_INTERVALS = 7
const DEFAULT_LIMIT = 25

const entityMatcher = (entity: RetentionEntity | null | undefined, attr: string, now: number, needs: Needs): EventMatcher => {
  const { id, type, properties } = entity ?? DEFAULT_ENTITY
  if (type === 'actions') throw new QueryRefused('Action entities are not supported yet: Hedgelog has no actions.', 'unsupported_query', attr)
  if (typeof id === 'number') throw new QueryRefused(`An events entity names its event with a string, not ${id}.`, 'invalid_input', attr)
  return { event: id ?? null, test: compileProperties(properties, now, needs) }
}

const breakdownOf = (query: RetentionQuery, needs: Needs): ((row: RowContext) => string) | null => {
  const filter = query.breakdownFilter
  if (!filter) return null
  let item: Breakdown | null = null
  if (filter.breakdowns && filter.breakdowns.length > 0) {
    if (filter.breakdowns.length > 1) throw new QueryRefused('Retention breaks down by one property at a time.', 'unsupported_query', 'breakdownFilter.breakdowns')
    item = filter.breakdowns[0]!
  } else if (filter.breakdown !== undefined && filter.breakdown !== null) {
    const { breakdown } = filter
    if (Array.isArray(breakdown) && breakdown.length !== 1) throw new QueryRefused('Retention breaks down by one property at a time.', 'unsupported_query', 'breakdownFilter.breakdown')
    item = {
      type: filter.breakdown_type ?? 'event', property: Array.isArray(breakdown) ? breakdown[0]! : breakdown,
      group_type_index: filter.breakdown_group_type_index ?? null, normalize_url: filter.breakdown_normalize_url ?? null,
      histogram_bin_count: filter.breakdown_histogram_bin_count ?? null,
    }
  }
  if (item === null) return null
  const text = breakdownText(item, needs)
  return (row) => text(row) ?? ''
}

/** Compiles a retention query's entities, filters, actor and breakdown. */
export const planRetention = (query: RetentionQuery, input: QueryInput): RetentionPlan => {
  const filter = query.retentionFilter
  if (filter.retentionType === 'retention_first_ever_occurrence') {
    throw new QueryRefused('The retention_first_ever_occurrence retention type is not supported yet.', 'unsupported_query', 'retentionFilter.retentionType')
  }
  const needs = noNeeds()
  const own = compileProperties(query.properties, input.now, needs)
  const testAccounts = compileProperties(query.filterTestAccounts ? input.environment.testAccountFilters : null, input.now, needs)
  const index = query.aggregation_group_type_index
  return {
    period: (filter.period ?? 'Day').toLowerCase() as RetentionPeriod,
    lookahead: filter.totalIntervals ?? DEFAULT_TOTAL_INTERVALS,
    target: entityMatcher(filter.targetEntity, 'retentionFilter.targetEntity', input.now, needs),
    returning: entityMatcher(filter.returningEntity, 'retentionFilter.returningEntity', input.now, needs),
    firstTime: filter.retentionType === 'retention_first_time',
    cumulative: filter.cumulative === true,
    minimumOccurrences: filter.minimumOccurrences ?? 1,
    test: (row) => own(row) && testAccounts(row),
    actorOf: index === undefined || index === null ? (row) => row.event.personId : (row) => row.groupKey(index),
    breakdown: breakdownOf(query, needs),
    limit: query.breakdownFilter?.breakdown_limit ?? DEFAULT_LIMIT,
    needs,
  }
}

const back = (local: number, period: Interval, n: number): number => {
  switch (period) {
    case 'hour': return shiftLocal(local, { hours: n }, -1)
    case 'day': return shiftLocal(local, { days: n }, -1)
    case 'week': return shiftLocal(local, { weeks: n }, -1)
    default: return shiftLocal(local, { months: n }, -1)
  }
}

/**
 * The cohort intervals, as PostHog's retention date range gives them: from the start of
 * date_from's interval (without date_from, `lookahead` intervals before the end) to the end of
 * date_to's interval. `earliestEvent` is the environment's first event (for `date_from: "all"`),
 * null when the range does not need it.
 */
export const retentionRangeAt = (query: RetentionQuery, plan: RetentionPlan, input: QueryInput, earliestEvent: number | null): RetentionRange => {
  const zone = openZone(input.environment.timezone)
  const { weekStartDay } = input.environment
  const range = resolveRange(query.dateRange, plan.period, { zone, weekStartDay, now: input.now, earliestEvent })
  const end = nextBucket(alignLocal(range.to, plan.period, weekStartDay), plan.period)
  const hasFrom = query.dateRange?.date_from !== undefined && query.dateRange.date_from !== null
  const first = alignLocal(hasFrom ? range.from : back(end, plan.period, plan.lookahead), plan.period, weekStartDay)
  const starts: number[] = []
  for (let start = first; start < end; start = nextBucket(start, plan.period)) starts.push(start)
  return { zone, starts, from: zone.toInstant(first), to: zone.toInstant(end) }
}

/** The cohort intervals of a run at `input.now` (`retentionRangeAt`, with the store's first event when needed). */
export const retentionRange = async (query: RetentionQuery, plan: RetentionPlan, input: QueryInput, source: QuerySource): Promise<RetentionRange> => {
  const earliestEvent = query.dateRange?.date_from === 'all' ? await source.earliestTimestamp() : null
  return retentionRangeAt(query, plan, input, earliestEvent)
}
