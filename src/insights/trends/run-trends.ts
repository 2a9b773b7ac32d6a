import type { JsonObject } from '../../eventlog/port.js'
import { BucketIndex } from '../engine/bucket-index.js'
import type { QueryInput, QuerySource } from '../engine/data.js'
import { earliestOf, loadLookups, namesOf, visitRows } from '../engine/passes.js'
import { noNeeds, type Needs } from '../properties/compile-filters.js'
import type { TrendsQuery } from '../schema/insight-queries.js'
import { compareRange } from '../time/compare-range.js'
import { resolveRange, type RangeContext, type ResolvedRange } from '../time/date-range.js'
import { isoDateTime } from '../time/labels.js'
import { openZone } from '../time/zone.js'
import { applyFormulas, type FormulaPlan } from './apply-formulas.js'
import { compileBreakdown, type BreakdownPlan } from './breakdown-values.js'
import { SeriesCollector } from './collector.js'
import { parseFormula } from './formula.js'
import { compileSeries, type SeriesPlan } from './series-plan.js'
import { isOtherSeries, shapeSeries, type CompareLabel, type Shaping, type TrendsSeries } from './series-results.js'
import { isTotalValue, trendsFilterEcho } from './trends-display.js'

export interface TrendsResponse {
  readonly results: TrendsSeries[]
  readonly hasMore: boolean
  readonly timezone: string
  readonly resolved_date_range: { readonly date_from: string; readonly date_to: string }
}

const formulasOf = (query: TrendsQuery, seriesCount: number): FormulaPlan[] => {
  const filter = query.trendsFilter
  const nodes = filter?.formulaNodes ?? filter?.formulas?.map((formula) => ({ formula, custom_name: null })) ??
    (filter?.formula ? [{ formula: filter.formula, custom_name: null }] : [])
  return nodes.map((node) => ({ text: node.formula, customName: node.custom_name ?? null, formula: parseFormula(node.formula, seriesCount) }))
}

interface Plan {
  readonly series: SeriesPlan[]
  readonly breakdown: BreakdownPlan | null
  readonly formulas: FormulaPlan[]
  readonly needs: Needs
}

const planTrends = (query: TrendsQuery, input: QueryInput, interval: ResolvedRange['interval']): Plan => {
  const needs = noNeeds()
  const context = {
    properties: query.properties, testAccountFilters: query.filterTestAccounts ? input.environment.testAccountFilters : null,
    aggregationGroupIndex: query.aggregation_group_type_index ?? null, interval, now: input.now, needs,
  }
  const series = query.series.map((node, order) => compileSeries(node, order, context))
  const breakdown = compileBreakdown(query.breakdownFilter, query.trendsFilter?.display === 'WorldMap', needs)
  return { series, breakdown, formulas: formulasOf(query, series.length), needs }
}

/** Runs every series over one period with one scan, then shapes their results. */
const runPeriod = async (
  plan: Plan, range: ResolvedRange, shaping: Omit<Shaping, 'range' | 'compareLabel'>, compareLabel: CompareLabel | null,
  source: QuerySource, input: QueryInput, rangeContext: RangeContext,
): Promise<{ perSeries: TrendsSeries[][]; cut: boolean }> => {
  const buckets = new BucketIndex(range, rangeContext.zone, rangeContext.weekStartDay)
  const collectors = plan.series.map((series) => new SeriesCollector(series, buckets, plan.breakdown, shaping.totalValue, rangeContext.zone))
  const scan = { from: earliestOf(collectors.map((c) => c.scanFrom())), to: range.filterTo, events: namesOf(plan.series.map((s) => s.event)) }
  const lookups = await loadLookups(source, input.environment, plan.needs, scan)
  await visitRows(source, scan, lookups, (row) => {
    for (const collector of collectors) if (collector.accepts(row.event)) collector.add(row)
  })
  let cut = false
  const perSeries = collectors.map((collector) => {
    const shaped = shapeSeries(collector.plan, collector.finish(), { ...shaping, range, compareLabel })
    cut ||= shaped.cut
    return shaped.series
  })
  return { perSeries, cut }
}

/** Runs a TrendsQuery (PostHog's TrendsQueryRunner): series, breakdowns, compare, formulas and displays. */
export const runTrends = async (query: TrendsQuery, input: QueryInput, source: QuerySource): Promise<TrendsResponse> => {
  const { environment } = input
  const zone = openZone(environment.timezone)
  const display = query.trendsFilter?.display ?? 'ActionsLineGraph'
  const totalValue = isTotalValue(display)
  const interval = totalValue ? 'day' : query.interval ?? 'day'
  const plan = planTrends(query, input, interval)
  const earliestEvent = query.dateRange?.date_from === 'all' ? await source.earliestTimestamp() : null
  const rangeContext: RangeContext = { zone, weekStartDay: environment.weekStartDay, now: input.now, earliestEvent }
  const current = resolveRange(query.dateRange, interval, rangeContext)
  const compare = query.compareFilter?.compare === true
  const periods: [ResolvedRange, CompareLabel | null][] = compare
    ? [[current, 'current'], [compareRange(query.dateRange, current, query.compareFilter?.compare_to, rangeContext), 'previous']]
    : [[current, null]]
  const shaping = {
    currentRange: current, zone, weekStartDay: environment.weekStartDay, totalValue,
    cumulative: display === 'ActionsLineGraphCumulative', smoothing: query.trendsFilter?.smoothingIntervals ?? 1,
    seriesCount: plan.series.length, breakdown: plan.breakdown, filter: trendsFilterEcho(query, current, zone),
  }
  const results: TrendsSeries[] = []
  let hasMore = false
  for (const [range, label] of periods) {
    const { perSeries, cut } = await runPeriod(plan, range, shaping, label, source, input, rangeContext)
    hasMore ||= cut
    results.push(...(plan.formulas.length > 0 ? applyFormulas(perSeries, plan.formulas, totalValue) : perSeries.flat()))
  }
  return {
    results: plan.breakdown?.hideOther ? results.filter((series) => !isOtherSeries(series)) : results,
    hasMore,
    timezone: environment.timezone,
    resolved_date_range: { date_from: isoDateTime(current.from, zone), date_to: isoDateTime(current.to, zone) },
  }
}

export type { JsonObject }
