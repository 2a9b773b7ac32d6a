import type { ChartSize } from './chart-input.js'
import type { ChartOption } from './frame.js'
import { BACKGROUND, SERIES_COLORS, TEXT_COLOR, tint } from './palette.js'
import { finite, formatNumber, isRow, labelOf, rowsOf } from './result-read.js'
import { tableElements } from './table-graphic.js'

/** Cohorts drawn at most. */
const MAX_COHORTS = 40
/** Periods drawn at most. */
const MAX_PERIODS = 24

const DAY = /^\d{4}-\d{2}-\d{2}/

const cohortName = (row: Record<string, unknown>): string => {
  const date = labelOf(row['date'])
  const when = DAY.exec(date)?.[0] ?? (labelOf(row['label']) || date)
  return row['breakdown_value'] !== undefined ? `${labelOf(row['breakdown_value'])} · ${when}` : when
}

/**
 * Retention: a table of cohorts (rows) by periods (columns). Each cell holds the share of the
 * cohort that came back in that period, shaded deeper as the share grows; the cohort's size
 * stands beside its name.
 */
export const retentionOption = (result: unknown, size: ChartSize): ChartOption | null => {
  const cohorts = rowsOf(result, MAX_COHORTS).filter((row) => Array.isArray(row['values']) && row['values'].length > 0)
  if (cohorts.length === 0) return null
  const counts = cohorts.map((row) => (row['values'] as unknown[]).slice(0, MAX_PERIODS).map((value) => finite(isRow(value) ? value['count'] : value)))
  const periods = Math.max(...counts.map((row) => row.length))
  const unit = labelOf(isRow((cohorts[0]!['values'] as unknown[])[0]) ? ((cohorts[0]!['values'] as unknown[])[0] as Record<string, unknown>)['label'] : '').split(' ')[0] || 'Period'
  const share = (row: number, period: number): number | null => {
    const cells = counts[row]!
    if (period >= cells.length) return null
    return cells[0]! > 0 ? cells[period]! / cells[0]! : 0
  }
  const columns = ['Cohort', 'Size', ...Array.from({ length: periods }, (_, k) => `${unit} ${k}`)]
  const rows = cohorts.map((row, r) => [
    cohortName(row),
    formatNumber(counts[r]![0] ?? 0),
    ...Array.from({ length: periods }, (_, k) => {
      const part = share(r, k)
      return part === null ? '' : `${(part * 100).toFixed(1)}%`
    }),
  ])
  const paint = (row: number, column: number) => {
    if (column < 2) return null
    const part = share(row, column - 2)
    if (part === null) return null
    return { fill: tint(SERIES_COLORS[0]!, 0.1 + 0.9 * part), text: part >= 0.5 ? BACKGROUND : TEXT_COLOR }
  }
  return { graphic: tableElements({ columns, rows, paint }, size) }
}
