import type { JsonObject } from '../../eventlog/port.js'
import { BucketIndex } from '../engine/bucket-index.js'
import type { QueryInput, QuerySource, ScanWindow } from '../engine/data.js'
import { loadLookups, namesOf, visitRows } from '../engine/passes.js'
import { settlePeriods, type CompareLabel, type Periods } from '../engine/periods.js'
import { noNeeds, type Needs } from '../properties/compile-filters.js'
import type { RowContext } from '../properties/row-context.js'
import type { StickinessQuery } from '../schema/insight-queries.js'
import type { Interval, RangeContext, ResolvedRange } from '../time/date-range.js'
import type { EventsNode } from '../schema/series.js'
import { compileSeries, eventsNodeOf, type SeriesPlan } from '../trends/series-plan.js'

export interface StickinessSeries {
  action: JsonObject
  label: string
  count: number
  data: number[]
  labels: string[]
  days: number[]
  compare?: true
  compare_label?: CompareLabel
}

export interface StickinessResponse {
  readonly results: StickinessSeries[]
  readonly timezone: string
  readonly resolved_date_range: { readonly date_from: string; readonly date_to: string }
}

export type Criteria = (count: number) => boolean

const criteriaOf = (query: StickinessQuery): Criteria => {
  const criteria = query.stickinessFilter?.stickinessCriteria
  if (!criteria) return (count) => count > 0
  const { operator, value } = criteria
  return operator === 'gte' ? (count) => count >= value : operator === 'lte' ? (count) => count > 0 && count <= value : (count) => count === value
}

/** Who a stickiness series counts: a group for `unique_group` math or group aggregation, else a person. */
const actorOf = (node: EventsNode, query: StickinessQuery): ((row: RowContext) => string | null) => {
  const index = node.math === 'unique_group' ? node.math_group_type_index ?? null : query.aggregation_group_type_index ?? null
  return index === null ? (row) => row.event.personId : (row) => row.groupKey(index)
}

const unitLabel = (n: number, unit: string, cumulative: boolean): string => `${n} ${unit}${n === 1 ? '' : 's'}${cumulative ? ' or more' : ''}`

/** Actors per number of active intervals of one series: `data[n-1]` actors active in exactly n intervals, `count` in any. */
export interface StickinessHistogram {
  readonly data: number[]
  count: number
}

export const emptyHistogram = (total: number): StickinessHistogram => ({ data: new Array<number>(total).fill(0), count: 0 })

/** Adds an actor active in `n` intervals to a histogram (`sign` -1 takes it away); an actor active in none counts nowhere. */
export const tallyStickiness = (histogram: StickinessHistogram, n: number, sign: 1 | -1): void => {
  if (n === 0) return
  histogram.count += sign
  histogram.data[n - 1]! += sign
}

/** One series' histogram over one period, from each actor's events per interval. */
const histogram = (activity: Map<string, Map<number, number>>, criteria: Criteria, total: number): StickinessHistogram => {
  const counted = emptyHistogram(total)
  for (const intervals of activity.values()) tallyStickiness(counted, activeIntervals(intervals, criteria), 1)
  return counted
}

/** A stickiness query compiled: its series, whom each counts, and the criteria of an active interval. */
export interface StickinessPlan {
  readonly plans: readonly SeriesPlan[]
  readonly actors: readonly ((row: RowContext) => string | null)[]
  readonly criteria: Criteria
  readonly step: number
  readonly cumulative: boolean
  readonly needs: Needs
}

export const planStickiness = (query: StickinessQuery, input: QueryInput): StickinessPlan => {
  const interval = query.interval ?? 'day'
  const needs = noNeeds()
  const context = {
    properties: query.properties, testAccountFilters: query.filterTestAccounts ? input.environment.testAccountFilters : null,
    aggregationGroupIndex: query.aggregation_group_type_index ?? null, interval, now: input.now, needs,
  }
  const nodes = query.series.map(eventsNodeOf)
  return {
    // The math only chooses whom to count; every series counts events per interval.
    plans: nodes.map((node, order) => compileSeries({ ...node, math: 'total' }, order, context)),
    actors: nodes.map((node) => actorOf(node, query)),
    criteria: criteriaOf(query),
    step: query.intervalCount ?? 1,
    cumulative: query.stickinessFilter?.computedAs === 'cumulative',
    needs,
  }
}

/** Whom series `i` counts for a row: its actor, or null when the row does not count in the series. */
export const stickinessActorOf = (plan: StickinessPlan, i: number, row: RowContext): string | null => {
  const series = plan.plans[i]!
  if ((series.event !== null && series.event !== row.event.event) || !series.test(row)) return null
  return plan.actors[i]!(row)
}

/** The interval (of `intervalCount` buckets) of a period an instant falls in, or -1 outside the period. */
export const stickinessInterval = (plan: StickinessPlan, buckets: BucketIndex, instant: number): number => {
  const bucket = buckets.indexOf(instant)
  return bucket < 0 ? -1 : Math.floor(bucket / plan.step)
}

/** How many intervals a period has. */
export const intervalsOf = (plan: StickinessPlan, range: ResolvedRange): number => Math.ceil(range.buckets.length / plan.step)

/** The instants a stickiness period reads events between: its range's; no event outside them changes its answer. */
export const stickinessWindow = (range: ResolvedRange): ScanWindow => ({ from: range.filterFrom, to: range.filterTo })

/** Per series, each actor's matching events per interval of one period (intervals of `intervalCount` buckets). */
export const stickinessActivity = async (
  plan: StickinessPlan, range: ResolvedRange, rangeContext: RangeContext, input: QueryInput, source: QuerySource,
): Promise<Map<string, Map<number, number>>[]> => {
  const buckets = new BucketIndex(range, rangeContext.zone, rangeContext.weekStartDay)
  const perSeries = plan.plans.map(() => new Map<string, Map<number, number>>())
  const scan = { ...stickinessWindow(range), events: namesOf(plan.plans.map((p) => p.event)) }
  const lookups = await loadLookups(source, input.environment, plan.needs, scan)
  await visitRows(source, scan, lookups, (row) => {
    const index = stickinessInterval(plan, buckets, row.event.timestamp)
    if (index < 0) return
    plan.plans.forEach((_, i) => {
      const actor = stickinessActorOf(plan, i, row)
      if (actor === null) return
      const intervals = perSeries[i]!.get(actor) ?? new Map<number, number>()
      intervals.set(index, (intervals.get(index) ?? 0) + 1)
      perSeries[i]!.set(actor, intervals)
    })
  })
  return perSeries
}

/** The number of intervals in which an actor met the criteria. */
export const activeIntervals = (intervals: ReadonlyMap<number, number>, criteria: Criteria): number => {
  let n = 0
  for (const events of intervals.values()) if (criteria(events)) n++
  return n
}

/** What a stickiness run settles before it reads events: its plan and periods. */
export interface StickinessRun {
  readonly interval: Interval
  readonly plan: StickinessPlan
  readonly periods: Periods['periods']
  readonly rangeContext: RangeContext
  readonly resolvedDateRange: Periods['resolvedDateRange']
}

/**
 * Settles a run of a StickinessQuery at `input.now`. `earliestEvent` is the environment's first
 * event (for `date_from: "all"`), null when the range does not need it.
 */
export const stickinessRun = (query: StickinessQuery, input: QueryInput, earliestEvent: number | null): StickinessRun => {
  const interval = query.interval ?? 'day'
  const plan = planStickiness(query, input)
  const { periods, context: rangeContext, resolvedDateRange } = settlePeriods(query.dateRange, interval, query.compareFilter, input, earliestEvent)
  return { interval, plan, periods, rangeContext, resolvedDateRange }
}

/** The response of a run from what it counted: per period, one histogram per series. */
export const stickinessResponse = (run: StickinessRun, counted: readonly (readonly StickinessHistogram[])[], timezone: string): StickinessResponse => {
  const { plan, interval } = run
  const results: StickinessSeries[] = []
  run.periods.forEach(([, label], p) => {
    results.push(...plan.plans.map((series, i) => {
      const { data: exactly, count } = counted[p]![i]!
      const data = [...exactly]
      if (plan.cumulative) for (let n = data.length - 2; n >= 0; n--) data[n]! += data[n + 1]!
      const shaped: StickinessSeries = {
        action: { id: series.event, type: 'events', order: series.order, name: series.label, custom_name: series.node.custom_name ?? null },
        label: series.label, count, data,
        labels: data.map((_, n) => unitLabel(n + 1, interval, plan.cumulative)),
        days: data.map((_, n) => n + 1),
      }
      if (label !== null) Object.assign(shaped, { compare: true, compare_label: label })
      return shaped
    }))
  })
  return { results, timezone, resolved_date_range: run.resolvedDateRange }
}

/** Runs a StickinessQuery: per series, how many actors were active in 1, 2, … N intervals of the range. */
export const runStickiness = async (query: StickinessQuery, input: QueryInput, source: QuerySource): Promise<StickinessResponse> => {
  const earliestEvent = query.dateRange?.date_from === 'all' ? await source.earliestTimestamp() : null
  const run = stickinessRun(query, input, earliestEvent)
  const counted: StickinessHistogram[][] = []
  for (const [range] of run.periods) {
    const perSeries = await stickinessActivity(run.plan, range, run.rangeContext, input, source)
    counted.push(perSeries.map((activity) => histogram(activity, run.plan.criteria, intervalsOf(run.plan, range))))
  }
  return stickinessResponse(run, counted, input.environment.timezone)
}
