import type { JsonObject } from '../../eventlog/port.js'
import { BucketIndex } from '../engine/bucket-index.js'
import type { QueryInput, QuerySource, ScanWindow } from '../engine/data.js'
import { earliestOf, loadLookups, namesOf, spanning, visitRows } from '../engine/passes.js'
import { noNeeds, type Needs } from '../properties/compile-filters.js'
import type { TrendsQuery } from '../schema/insight-queries.js'
import { compareRange } from '../time/compare-range.js'
import { resolveRange, type RangeContext, type ResolvedRange } from '../time/date-range.js'
import { isoDateTime } from '../time/labels.js'
import { openZone } from '../time/zone.js'
import { applyFormulas, type FormulaPlan } from './apply-formulas.js'
import { compileBreakdown, type BreakdownPlan } from './breakdown-values.js'
import { SeriesCollector, type Entry } from './collector.js'
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

export interface Plan {
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

/** One period a run counts: the current one, or the one it is compared with. */
export interface TrendsPeriod {
  readonly range: ResolvedRange
  readonly label: CompareLabel | null
}

/** What a trends run settles before it counts events: its plan, its periods and how their series are shaped. */
export interface TrendsRun {
  readonly query: TrendsQuery
  readonly plan: Plan
  readonly periods: readonly TrendsPeriod[]
  readonly current: ResolvedRange
  readonly shaping: Omit<Shaping, 'range' | 'compareLabel'>
  readonly rangeContext: RangeContext
}

/**
 * Settles a run of a TrendsQuery at `input.now`: the series and breakdown, the current period
 * and the compared one, and the shaping of results. `earliestEvent` is the environment's first
 * event (for `date_from: "all"`), null when the range does not need it.
 */
export const trendsRun = (query: TrendsQuery, input: QueryInput, earliestEvent: number | null): TrendsRun => {
  const { environment } = input
  const zone = openZone(environment.timezone)
  const display = query.trendsFilter?.display ?? 'ActionsLineGraph'
  const totalValue = isTotalValue(display)
  const interval = totalValue ? 'day' : query.interval ?? 'day'
  const plan = planTrends(query, input, interval)
  const rangeContext: RangeContext = { zone, weekStartDay: environment.weekStartDay, now: input.now, earliestEvent }
  const current = resolveRange(query.dateRange, interval, rangeContext)
  const periods: TrendsPeriod[] = query.compareFilter?.compare === true
    ? [{ range: current, label: 'current' }, { range: compareRange(query.dateRange, current, query.compareFilter?.compare_to, rangeContext), label: 'previous' }]
    : [{ range: current, label: null }]
  const shaping = {
    currentRange: current, zone, weekStartDay: environment.weekStartDay, totalValue,
    cumulative: display === 'ActionsLineGraphCumulative', smoothing: query.trendsFilter?.smoothingIntervals ?? 1,
    seriesCount: plan.series.length, breakdown: plan.breakdown, filter: trendsFilterEcho(query, current, zone),
  }
  return { query, plan, periods, current, shaping, rangeContext }
}

/**
 * The response of a run from what it counted: for each period, each series' entries (its
 * breakdown values, each with one cell per bucket of the period, or one for a total value).
 */
export const trendsResponse = (run: TrendsRun, counted: readonly (readonly Entry[][])[], timezone: string): TrendsResponse => {
  const { plan, shaping } = run
  const results: TrendsSeries[] = []
  let hasMore = false
  run.periods.forEach((period, index) => {
    const perSeries = plan.series.map((series, order) => {
      const shaped = shapeSeries(series, counted[index]![order]!, { ...shaping, range: period.range, compareLabel: period.label })
      hasMore ||= shaped.cut
      return shaped.series
    })
    results.push(...(plan.formulas.length > 0 ? applyFormulas(perSeries, plan.formulas, shaping.totalValue) : perSeries.flat()))
  })
  return {
    results: plan.breakdown?.hideOther ? results.filter((series) => !isOtherSeries(series)) : results,
    hasMore,
    timezone,
    resolved_date_range: { date_from: isoDateTime(run.current.from, shaping.zone), date_to: isoDateTime(run.current.to, shaping.zone) },
  }
}

const collectorsOf = (run: TrendsRun, range: ResolvedRange): SeriesCollector[] => {
  const { plan, shaping, rangeContext } = run
  const buckets = new BucketIndex(range, rangeContext.zone, rangeContext.weekStartDay)
  return plan.series.map((series) => new SeriesCollector(series, buckets, plan.breakdown, shaping.totalValue, rangeContext.zone))
}

/** What one period's scan reads: from the earliest instant a series counts from (active users look back), to the range's end. */
const periodWindow = (collectors: readonly SeriesCollector[], range: ResolvedRange): ScanWindow =>
  ({ from: earliestOf(collectors.map((c) => c.scanFrom())), to: range.filterTo })

/** The instants a run reads events between, over every period: no event outside them changes its answer. */
export const trendsWindow = (run: TrendsRun): ScanWindow =>
  spanning(run.periods.map((period) => periodWindow(collectorsOf(run, period.range), period.range)))

/** Counts every series over one period with one scan: each series' entries. */
const countPeriod = async (run: TrendsRun, range: ResolvedRange, source: QuerySource, input: QueryInput): Promise<Entry[][]> => {
  const { plan } = run
  const collectors = collectorsOf(run, range)
  // No series has nothing to count, and no window to read events in.
  if (collectors.length === 0) return []
  const scan = { ...periodWindow(collectors, range), events: namesOf(plan.series.map((s) => s.event)) }
  const lookups = await loadLookups(source, input.environment, plan.needs, scan)
  await visitRows(source, scan, lookups, (row) => {
    for (const collector of collectors) if (collector.accepts(row.event)) collector.add(row)
  })
  return collectors.map((collector) => collector.finish())
}

/** Runs a TrendsQuery (PostHog's TrendsQueryRunner): series, breakdowns, compare, formulas and displays. */
export const runTrends = async (query: TrendsQuery, input: QueryInput, source: QuerySource): Promise<TrendsResponse> => {
  const earliestEvent = query.dateRange?.date_from === 'all' ? await source.earliestTimestamp() : null
  const run = trendsRun(query, input, earliestEvent)
  const counted: Entry[][][] = []
  for (const period of run.periods) counted.push(await countPeriod(run, period.range, source, input))
  return trendsResponse(run, counted, input.environment.timezone)
}

export type { JsonObject }
