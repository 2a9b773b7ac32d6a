import type { JsonObject } from '../../eventlog/port.js'
import { BucketIndex } from '../engine/bucket-index.js'
import type { QueryInput, QuerySource } from '../engine/data.js'
import { loadLookups, namesOf, visitRows } from '../engine/passes.js'
import { resolvePeriods, type CompareLabel } from '../engine/periods.js'
import { noNeeds, type Needs } from '../properties/compile-filters.js'
import type { RowContext } from '../properties/row-context.js'
import type { StickinessQuery } from '../schema/insight-queries.js'
import type { RangeContext, ResolvedRange } from '../time/date-range.js'
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

/** Actors per number of active intervals: `data[n-1]` actors active in exactly n (cumulative: at least n). */
const histogram = (activity: Map<string, Map<number, number>>, criteria: Criteria, total: number, cumulative: boolean): { data: number[]; count: number } => {
  const data = new Array<number>(total).fill(0)
  let count = 0
  for (const intervals of activity.values()) {
    const n = activeIntervals(intervals, criteria)
    if (n === 0) continue
    count++
    data[n - 1]! += 1
  }
  if (cumulative) for (let i = total - 2; i >= 0; i--) data[i]! += data[i + 1]!
  return { data, count }
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

/** Per series, each actor's matching events per interval of one period (intervals of `intervalCount` buckets). */
export const stickinessActivity = async (
  plan: StickinessPlan, range: ResolvedRange, rangeContext: RangeContext, input: QueryInput, source: QuerySource,
): Promise<Map<string, Map<number, number>>[]> => {
  const buckets = new BucketIndex(range, rangeContext.zone, rangeContext.weekStartDay)
  const perSeries = plan.plans.map(() => new Map<string, Map<number, number>>())
  const scan = { from: range.filterFrom, to: range.filterTo, events: namesOf(plan.plans.map((p) => p.event)) }
  const lookups = await loadLookups(source, input.environment, plan.needs, scan)
  await visitRows(source, scan, lookups, (row) => {
    const bucket = buckets.indexOf(row.event.timestamp)
    if (bucket < 0) return
    plan.plans.forEach((series, i) => {
      if ((series.event !== null && series.event !== row.event.event) || !series.test(row)) return
      const actor = plan.actors[i]!(row)
      if (actor === null) return
      const intervals = perSeries[i]!.get(actor) ?? new Map<number, number>()
      const index = Math.floor(bucket / plan.step)
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

/** Runs a StickinessQuery: per series, how many actors were active in 1, 2, … N intervals of the range. */
export const runStickiness = async (query: StickinessQuery, input: QueryInput, source: QuerySource): Promise<StickinessResponse> => {
  const interval = query.interval ?? 'day'
  const plan = planStickiness(query, input)
  const { periods, context: rangeContext, resolvedDateRange } = await resolvePeriods(query.dateRange, interval, query.compareFilter, input, source)
  const results: StickinessSeries[] = []
  for (const [range, label] of periods) {
    const perSeries = await stickinessActivity(plan, range, rangeContext, input, source)
    const total = Math.ceil(range.buckets.length / plan.step)
    results.push(...plan.plans.map((series, i) => {
      const { data, count } = histogram(perSeries[i]!, plan.criteria, total, plan.cumulative)
      const shaped: StickinessSeries = {
        action: { id: series.event, type: 'events', order: series.order, name: series.label, custom_name: series.node.custom_name ?? null },
        label: series.label, count, data,
        labels: data.map((_, n) => unitLabel(n + 1, interval, plan.cumulative)),
        days: data.map((_, n) => n + 1),
      }
      if (label !== null) Object.assign(shaped, { compare: true, compare_label: label })
      return shaped
    }))
  }
  return { results, timezone: input.environment.timezone, resolved_date_range: resolvedDateRange }
}
