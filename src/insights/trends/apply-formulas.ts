import { NULL_VALUE, keyOf, isOther, type BreakdownValue } from './breakdown-values.js'
import type { Formula } from './formula.js'
import type { TrendsSeries } from './series-results.js'

export interface FormulaPlan {
  readonly text: string
  readonly customName: string | null
  readonly formula: Formula
}

const naturalKey = new Intl.Collator('en', { numeric: true, sensitivity: 'base' })

const rankOf = (value: BreakdownValue | undefined): number =>
  value === undefined ? 0 : isOther(value) ? 2 : keyOf(value) === NULL_VALUE || (Array.isArray(value) && value.every((v) => v === NULL_VALUE)) ? 1 : 0

const sumOf = (series: TrendsSeries): number => series.aggregated_value ?? (series.data ?? []).reduce((a, b) => a + b, 0)

/** One formula over one group of series (the same breakdown value across the query's series). */
const applyToGroup = (group: (TrendsSeries | null)[], plan: FormulaPlan, totalValue: boolean): TrendsSeries => {
  const base = group.find((series) => series !== null)!
  const out: TrendsSeries = { ...base, label: plan.customName ?? `Formula (${plan.text})`, action: null }
  if (totalValue) {
    out.aggregated_value = plan.formula(group.map((series) => series?.aggregated_value ?? 0))
    out.data = null
    out.count = 0
    return out
  }
  const length = base.data?.length ?? 0
  const data = Array.from({ length }, (_, i) => plan.formula(group.map((series) => series?.data?.[i] ?? 0)))
  out.data = data
  out.count = data.reduce((a, b) => a + b, 0)
  return out
}

/**
 * Applies formulas to one period's results (`perSeries[i]` holds query series i's results).
 * Without a breakdown each formula gives one series; with one, a series per breakdown value
 * (missing values count as zeros), ordinary values first by total, then null, then Other.
 * The original series are not returned, as in PostHog.
 */
export const applyFormulas = (perSeries: TrendsSeries[][], formulas: readonly FormulaPlan[], totalValue: boolean): TrendsSeries[] => {
  const out: TrendsSeries[] = []
  const hasBreakdown = perSeries.some((list) => list.some((series) => series.breakdown_value !== undefined))
  for (const plan of formulas) {
    if (!hasBreakdown) {
      // A breakdown that found no values leaves no series at all, and a formula over them gives none.
      const group = perSeries.map((list) => list[0] ?? null)
      if (group.some((series) => series !== null)) out.push(applyToGroup(group, plan, totalValue))
      continue
    }
    const values = new Map<string, BreakdownValue>()
    for (const list of perSeries) for (const series of list) values.set(keyOf(series.breakdown_value!), series.breakdown_value!)
    const keys = [...values.keys()].sort(naturalKey.compare)
    const results = keys.map((key) => applyToGroup(perSeries.map((list) => list.find((series) => keyOf(series.breakdown_value!) === key) ?? null), plan, totalValue))
    results.sort((a, b) => rankOf(a.breakdown_value) - rankOf(b.breakdown_value) || sumOf(b) - sumOf(a) || b.count - a.count)
    out.push(...results)
  }
  return out
}
