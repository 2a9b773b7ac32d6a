import { finiteOrNull, labelOf, MAX_POINTS, MAX_SERIES, numbersOf, rowsOf, type Row } from './result-read.js'

/** One series as it is drawn: trends, stickiness and lifecycle results all read into these. */
export interface DrawnSeries {
  readonly label: string
  /** Its numbers per bucket (the latest `MAX_POINTS`). */
  readonly data: number[]
  /** One number for the whole range: `aggregated_value`, else `count`, else the sum of `data`. */
  readonly total: number
  /** Its position in the result, which picks its colour. */
  readonly index: number
  /** The lifecycle status of a lifecycle series. */
  readonly status: string | null
}

export interface DrawnSeriesSet {
  /** The bucket labels, as many as the longest series has numbers. */
  readonly labels: string[]
  readonly series: DrawnSeries[]
}

const seriesLabel = (row: Row): string => {
  const label = labelOf(row['label'] ?? row['breakdown_value'] ?? '')
  return row['compare'] === true && typeof row['compare_label'] === 'string' ? `${label} (${labelOf(row['compare_label'])})` : label
}

const totalOf = (row: Row, data: number[]): number =>
  finiteOrNull(row['aggregated_value']) ?? finiteOrNull(row['count']) ?? data.reduce((a, b) => a + b, 0)

/**
 * The series of a trends, stickiness or lifecycle result (an array of objects with `data` or
 * `aggregated_value`), at most `MAX_SERIES`; null when there are none.
 */
export const readSeries = (result: unknown): DrawnSeriesSet | null => {
  const rows = rowsOf(result, MAX_SERIES).filter((row) => Array.isArray(row['data']) || 'aggregated_value' in row)
  if (rows.length === 0) return null
  const series = rows.map((row, index): DrawnSeries => {
    const data = numbersOf(row['data'])
    return { label: seriesLabel(row), data, total: totalOf(row, data), index, status: typeof row['status'] === 'string' ? row['status'] : null }
  })
  const length = Math.max(0, ...series.map((one) => one.data.length))
  const source = rows.find((row) => Array.isArray(row['labels'])) ?? rows.find((row) => Array.isArray(row['days']))
  const given = source === undefined ? [] : ((Array.isArray(source['labels']) ? source['labels'] : source['days']) as unknown[])
  const named = given.slice(-Math.min(length, MAX_POINTS)).map(labelOf)
  const labels = Array.from({ length }, (_, i) => named[i - (length - named.length)] ?? '')
  return { labels, series }
}
