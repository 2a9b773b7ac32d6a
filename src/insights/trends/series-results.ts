import type { JsonObject } from '../../eventlog/port.js'
import { bucketDay, bucketLabel, isoDateTime } from '../time/labels.js'
import type { ResolvedRange, WeekStartDay } from '../time/date-range.js'
import type { Zone } from '../time/zone.js'
import { isOther, otherValue, rankValues, type BreakdownPlan, type BreakdownValue } from './breakdown-values.js'
import type { Entry } from './collector.js'
import { newCell, type SeriesPlan } from './series-plan.js'

export type CompareLabel = 'current' | 'previous'

/** One series of a trends result, as PostHog's runner writes it. */
export interface TrendsSeries {
  data: number[] | null
  labels?: string[]
  days: string[]
  count: number
  aggregated_value?: number
  label: string
  filter: JsonObject
  action: JsonObject | null
  breakdown_value?: BreakdownValue
  compare?: true
  compare_label?: CompareLabel
}

/** What shaping a series needs besides its numbers. */
export interface Shaping {
  readonly range: ResolvedRange
  /** The current period's range: `action.days` lists its buckets, also for the previous period. */
  readonly currentRange: ResolvedRange
  readonly zone: Zone
  readonly weekStartDay: WeekStartDay
  readonly totalValue: boolean
  readonly cumulative: boolean
  readonly smoothing: number
  readonly compareLabel: CompareLabel | null
  readonly seriesCount: number
  readonly breakdown: BreakdownPlan | null
  readonly filter: JsonObject
}

const actionOf = (plan: SeriesPlan, shaping: Shaping): JsonObject => ({
  days: shaping.currentRange.buckets.map((bucket) => isoDateTime(bucket, shaping.zone)),
  id: plan.event,
  type: 'events',
  order: plan.order,
  name: plan.label,
  custom_name: plan.node.custom_name ?? null,
  math: plan.node.math ?? 'total',
  math_property: plan.node.math_property ?? null,
  math_hogql: plan.node.math_hogql ?? null,
  math_group_type_index: plan.node.math_group_type_index ?? null,
  properties: {},
})

const smooth = (data: number[], n: number): number[] =>
  n <= 1 ? data : data.map((_, i) => {
    const window = data.slice(Math.max(0, i - n + 1), i + 1)
    return window.reduce((a, b) => a + b, 0) / window.length
  })

const runningSum = (data: number[]): number[] => {
  let total = 0
  return data.map((value) => (total += value))
}

const breakdownLabel = (value: BreakdownValue): string => (typeof value === 'string' ? value : value.join('::'))

const shapeOne = (plan: SeriesPlan, value: BreakdownValue | null, numbers: number[], shaping: Shaping): TrendsSeries => {
  const { range } = shaping
  const days = range.buckets.map((bucket) => bucketDay(bucket, range.interval))
  const base = { label: plan.label, filter: shaping.filter, action: actionOf(plan, shaping) }
  let series: TrendsSeries
  if (shaping.totalValue) {
    series = { data: [], days, count: 0, aggregated_value: numbers[0] ?? 0, ...base }
  } else {
    let data = smooth(numbers, shaping.smoothing)
    if (shaping.cumulative) data = runningSum(data)
    const count = shaping.cumulative ? data[data.length - 1] ?? 0 : data.reduce((a, b) => a + b, 0)
    series = { data, labels: range.buckets.map((bucket) => bucketLabel(bucket, range, shaping.weekStartDay)), days, count, ...base }
  }
  if (shaping.compareLabel !== null) {
    series.compare = true
    series.compare_label = shaping.compareLabel
  }
  if (value !== null) {
    series.label = shaping.seriesCount > 1 ? `${plan.label} - ${breakdownLabel(value)}` : breakdownLabel(value)
    series.breakdown_value = value
  }
  return series
}

const total = (numbers: number[]): number => numbers.reduce((a, b) => a + b, 0)

/**
 * One query series' results for one period: a series per kept breakdown value, in PostHog's
 * order, then "Other" (unless hidden) when values were cut; `cut` tells whether any were.
 */
export const shapeSeries = (plan: SeriesPlan, entries: Entry[], shaping: Shaping): { series: TrendsSeries[]; cut: boolean } => {
  const { breakdown } = shaping
  if (breakdown === null) {
    const entry = entries[0]!
    return { series: [shapeOne(plan, null, entry.cells.map((cell) => cell.value()), shaping)], cut: false }
  }
  const ranked = entries.map((entry) => {
    const numbers = entry.cells.map((cell) => cell.value())
    return { value: entry.value!, total: total(numbers), item: { entry, numbers } }
  })
  const { kept, rest } = rankValues(ranked, breakdown.limit)
  const series = kept.map(({ value, item }) => shapeOne(plan, value, item.numbers, shaping))
  if (rest.length === 0) return { series, cut: false }
  if (!breakdown.hideOther) {
    const merged = rest[0]!.item.entry.cells.map(() => newCell(plan.measure))
    for (const { item } of rest) item.entry.cells.forEach((cell, i) => merged[i]!.merge(cell))
    series.push(shapeOne(plan, otherValue(breakdown, rest[0]!.value), merged.map((cell) => cell.value()), shaping))
  }
  return { series, cut: true }
}

export const isOtherSeries = (series: TrendsSeries): boolean => series.breakdown_value !== undefined && isOther(series.breakdown_value)
