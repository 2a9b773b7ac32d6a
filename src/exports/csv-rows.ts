import type { JsonObject } from '../eventlog/port.js'
import { setOwn } from '../kernel/own-value.js'

/** A query's answer as the CSV exporter reads it: `results` (or an insight's `result`), with `columns` and `types` for tables. */
export interface TabularAnswer {
  readonly results: unknown
  readonly columns?: readonly unknown[] | null
  readonly types?: readonly unknown[] | null
}

type Row = Record<string, unknown>

const OTHER_VALUE = '$$_posthog_breakdown_other_$$'
const NULL_VALUE = '$$_posthog_breakdown_null_$$'
const OTHER_DISPLAY = 'Other (i.e. all remaining values)'
const NULL_DISPLAY = 'None (i.e. no value)'

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value)
const text = (value: unknown): string => (value === null || value === undefined ? '' : typeof value === 'string' ? value : String(value))

/** Table rows (an events query): one row per result, keyed by column name (`column_<i>` without names). */
const tableRow = (columns: readonly unknown[] | null | undefined) => (row: unknown): Row =>
  Object.fromEntries((row as unknown[]).map((cell, index) => [columns && columns.length > 0 ? String(columns[index]) : `column_${index}`, cell]))

/** Funnel steps (one list per breakdown value when broken down): PostHog's six columns per step. */
const funnelSteps = (results: readonly unknown[]): JsonObject[] => {
  const lists = Array.isArray(results[0]) ? (results as unknown[][]) : [results]
  return lists.flatMap((steps) => steps.filter(isObject))
}

const funnelRow = (step: JsonObject): Row => {
  const breakdown = step['breakdown_value']
  return {
    name: step['custom_name'] || (step['action_id'] ?? ''),
    breakdown_value: Array.isArray(breakdown) ? breakdown.map(text).join('::') : text(breakdown),
    action_id: step['action_id'] ?? '',
    count: step['count'] ?? '',
    'median_conversion_time (seconds)': step['median_conversion_time'] ?? '',
    'average_conversion_time (seconds)': step['average_conversion_time'] ?? '',
  }
}

/** Retention cohorts: the cohort's date (or label), its size, then each period's count. */
const retentionRow = (cohort: JsonObject): Row => {
  const values = (cohort['values'] as JsonObject[] | undefined) ?? []
  const dated = Boolean(cohort['date'])
  const row: Row = { cohort: dated ? cohort['date'] : cohort['label'], 'cohort size': values[0]?.['count'] }
  values.forEach((value, index) => { row[dated ? text(value['label']) : `Period ${index}`] = value['count'] })
  return row
}

const breakdownProperties = (breakdownFilter: JsonObject | null): (string | null)[] => {
  if (!breakdownFilter) return []
  const breakdowns = breakdownFilter['breakdowns']
  if (Array.isArray(breakdowns) && breakdowns.length > 0) {
    return breakdowns.map((one) => (isObject(one) && typeof one['property'] === 'string' ? one['property'] : null))
  }
  return 'breakdown' in breakdownFilter ? [text(breakdownFilter['breakdown']) || null] : []
}

const breakdownDisplay = (value: unknown): string => {
  const shown = text(value)
  return shown === OTHER_VALUE ? OTHER_DISPLAY : shown === NULL_VALUE ? NULL_DISPLAY : shown
}

/**
 * Trends-like series (trends, stickiness, lifecycle): one row per series, its label (with the
 * comparison's), a custom name, a column per breakdown property, then a column per date label,
 * or `Total Sum` for a total value. Compared series take their labels from the current period's.
 */
const seriesRow = (results: readonly JsonObject[], breakdownFilter: JsonObject | null): ((series: JsonObject, index: number) => Row) => {
  const comparing = Boolean(results[0]?.['compare_label'])
  const current = results.find((series) => series['compare_label'] === 'current')
  const properties = breakdownProperties(breakdownFilter)
  return (series, index) => {
    const label = series['label'] ?? `Series #${index + 1}`
    const compare = series['compare_label']
    const row: Row = { series: compare ? `${text(label)} - ${text(compare)}` : label }
    const action = series['action']
    if (isObject(action) && action['custom_name']) row['custom name'] = action['custom_name']
    if ('breakdown_value' in series) {
      const value = series['breakdown_value']
      const values = Array.isArray(value) ? value : [value]
      values.forEach((one, i) => {
        const property = properties[i]
        if (property) setOwn(row, property, breakdownDisplay(one))
      })
    }
    const labels = ((comparing ? current : series)?.['labels'] as unknown[] | undefined) ?? []
    const data = series['data']
    if (series['aggregated_value'] !== null && series['aggregated_value'] !== undefined) row['Total Sum'] = series['aggregated_value']
    else if (Array.isArray(data) && data.length > 0) data.forEach((value, i) => { row[text(labels[i])] = value })
    return row
  }
}

/** The items of an answer that become rows, and how one becomes its row; a caller maps them at its own pace. */
export interface RowSource {
  readonly items: readonly unknown[]
  readonly row: (item: unknown, index: number) => Row
}

const NO_ROWS: RowSource = { items: [], row: () => ({}) }

const source = <T>(items: readonly T[], row: (item: T, index: number) => Row): RowSource =>
  ({ items, row: row as (item: unknown, index: number) => Row })

/**
 * The rows PostHog's CSV exporter makes of a query's answer, told apart by their shape as it
 * tells them: tables, funnel steps, retention cohorts, series; an answer of another shape gives
 * its results as they are, and nothing gives no rows.
 */
export const csvRowSource = (answer: TabularAnswer, breakdownFilter: JsonObject | null = null): RowSource => {
  const { results } = answer
  if (!Array.isArray(results)) return NO_ROWS
  const first: unknown = results[0]
  if (first === undefined || first === null) return NO_ROWS
  if (Array.isArray(first) && answer.types && answer.types.length > 0) return source(results, tableRow(answer.columns))
  if (Array.isArray(first) || (isObject(first) && first['action_id'] !== undefined && first['action_id'] !== null)) {
    return source(funnelSteps(results), funnelRow)
  }
  if (!isObject(first)) return NO_ROWS
  if (first['values'] && first['label']) return source(results as JsonObject[], retentionRow)
  if (Array.isArray(first['data']) || ((first['data'] === null || first['data'] === undefined) && 'aggregated_value' in first)) {
    return source(results as JsonObject[], seriesRow(results as JsonObject[], breakdownFilter))
  }
  return source(results.filter(isObject), (row) => row)
}

/** Every row of an answer at once (see `csvRowSource`). */
export const csvRows = (answer: TabularAnswer, breakdownFilter: JsonObject | null = null): Row[] => {
  const { items, row } = csvRowSource(answer, breakdownFilter)
  return items.map(row)
}
