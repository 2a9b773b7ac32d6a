import { BucketIndex } from '../engine/bucket-index.js'
import type { QueryInput, QuerySource } from '../engine/data.js'
import { loadLookups, visitRows } from '../engine/passes.js'
import { QueryRefused } from '../errors.js'
import { noNeeds } from '../properties/compile-filters.js'
import type { RowContext } from '../properties/row-context.js'
import type { TrendsQuery } from '../schema/insight-queries.js'
import type { InsightActorsQuery } from '../schema/other-queries.js'
import { shiftLocal } from '../time/calendar.js'
import { compareRange } from '../time/compare-range.js'
import { resolveRange, type Interval, type ResolvedRange } from '../time/date-range.js'
import { openZone } from '../time/zone.js'
import { OTHER_VALUE, compileBreakdown, keyOf, type BreakdownValue } from '../trends/breakdown-values.js'
import { runTrends } from '../trends/run-trends.js'
import { compileSeries, eventsNodeOf } from '../trends/series-plan.js'
import { isTotalValue } from '../trends/trends-display.js'
import { addActor, bucketOfDay, newDrill, sameParts, selectorParts, type Drill } from './drill.js'

/** Which breakdown values a data point means: one value, or (for Other) every value the result did not list. */
const breakdownMatcher = async (query: InsightActorsQuery, trends: TrendsQuery, input: QueryInput, source: QuerySource): Promise<((value: BreakdownValue) => boolean) | null> => {
  const selector = query.breakdown
  if (selector === undefined || selector === null) return null
  const wanted = selectorParts(selector)
  if (!wanted.every((part) => part === OTHER_VALUE)) {
    return (value) => sameParts(typeof value === 'string' ? [value] : value, wanted)
  }
  const compare = query.compare ?? (trends.compareFilter?.compare ? 'current' : null)
  const { results } = await runTrends(trends, input, source)
  const listed = new Set(results
    .filter((series) => series.action?.['order'] === (query.series ?? 0) && (compare === null || series.compare_label === compare))
    .flatMap((series) => (series.breakdown_value === undefined ? [] : [keyOf(series.breakdown_value)])))
  return (value) => !listed.has(keyOf(value))
}

/** The range of the point's period (current or previous) and its bucket (null: the whole range; -1: none). */
const pointOf = async (query: InsightActorsQuery, trends: TrendsQuery, interval: Interval, totalValue: boolean, input: QueryInput, source: QuerySource) => {
  const zone = openZone(input.environment.timezone)
  const { weekStartDay } = input.environment
  const earliestEvent = trends.dateRange?.date_from === 'all' ? await source.earliestTimestamp() : null
  const rangeContext = { zone, weekStartDay, now: input.now, earliestEvent }
  const current = resolveRange(trends.dateRange, interval, rangeContext)
  const range: ResolvedRange = query.compare === 'previous' ? compareRange(trends.dateRange, current, trends.compareFilter?.compare_to, rangeContext) : current
  const bucket = totalValue || query.day === undefined || query.day === null ? null : bucketOfDay(query.day, range, zone, weekStartDay)
  return { range, zone, buckets: new BucketIndex(range, zone, weekStartDay), bucket }
}

/**
 * The actors behind one point of a trends result (`series`, `day`, `breakdown`, `compare`): those
 * with a matching event in the bucket (in the whole range for total-value displays), in the
 * active window for weekly and monthly actives, or whose first event is there for first-time maths.
 */
export const trendsActors = async (query: InsightActorsQuery, trends: TrendsQuery, input: QueryInput, source: QuerySource): Promise<Drill> => {
  const index = query.series ?? 0
  const node = trends.series[index]
  if (node === undefined) throw new QueryRefused(`The insight has no series ${index}.`, 'invalid_input', 'series')
  const display = trends.trendsFilter?.display ?? 'ActionsLineGraph'
  const totalValue = isTotalValue(display)
  const interval = totalValue ? 'day' : trends.interval ?? 'day'
  const needs = noNeeds()
  const context = {
    properties: trends.properties, testAccountFilters: trends.filterTestAccounts ? input.environment.testAccountFilters : null,
    aggregationGroupIndex: trends.aggregation_group_type_index ?? null, interval, now: input.now, needs,
  }
  const plan = compileSeries(node, index, context)
  const breakdown = compileBreakdown(trends.breakdownFilter, display === 'WorldMap', needs)
  const matchValue = breakdown === null ? null : await breakdownMatcher(query, trends, input, source)
  const { range, zone, buckets, bucket } = await pointOf(query, trends, interval, totalValue, input, source)
  const events = eventsNodeOf(node)
  const groupIndex = events.math === 'unique_group' ? events.math_group_type_index ?? null : trends.aggregation_group_type_index ?? null
  const drill = newDrill(groupIndex, { eventCount: true, distinctIds: true })
  if (bucket === -1) return drill
  const actorOf = (row: RowContext) => (groupIndex === null ? row.event.personId : row.groupKey(groupIndex))
  const inPoint = (row: RowContext) => plan.test(row) && (matchValue === null || matchValue(breakdown!.valueOf(row)))
  const { measure } = plan
  // The active-users window of the bucket: the days (7 or 30) that end with it.
  const end = bucket === null ? range.filterTo + 1 : buckets.ends[bucket]!
  const windowStart = measure.kind === 'active' ? zone.toInstant(shiftLocal(zone.toLocal(end), { days: measure.days }, -1)) : null
  const inTime = (t: number): boolean => {
    if (windowStart !== null) return t >= windowStart && t < end && t <= range.filterTo
    const at = buckets.indexOf(t)
    return at >= 0 && (bucket === null || at === bucket)
  }
  const scan = { from: measure.kind === 'first' ? null : Math.min(range.filterFrom, windowStart ?? Infinity), to: range.filterTo, events: plan.event === null ? null : [plan.event] }
  const lookups = await loadLookups(source, input.environment, needs, scan)
  const firsts = new Map<string, RowContext>()
  await visitRows(source, scan, lookups, (row) => {
    const actor = actorOf(row)
    if (actor === null) return
    if (measure.kind === 'first') {
      if (!firsts.has(actor) && (!measure.matching || plan.test(row))) firsts.set(actor, row)
    } else if (inTime(row.event.timestamp) && inPoint(row)) addActor(drill, actor, row)
  })
  for (const [actor, row] of firsts) if (inTime(row.event.timestamp) && inPoint(row)) addActor(drill, actor, row)
  return drill
}
