/** An insight's result as a small table of text, for deliveries that carry no picture. */
export interface ResultTable {
  readonly columns: readonly string[]
  readonly rows: readonly (readonly string[])[]
}

/** Buckets shown at most: the latest ones, with the series' total beside them. */
const LATEST_BUCKETS = 7
/** Rows shown at most (series, steps or cohorts). */
const MAX_ROWS = 20

type Row = Record<string, unknown>

const isRow = (value: unknown): value is Row => value !== null && typeof value === 'object' && !Array.isArray(value)

const number = (value: unknown): string => {
  if (typeof value !== 'number' || !Number.isFinite(value)) return value === null || value === undefined ? '' : String(value)
  return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 2 })
}

const percent = (part: number, whole: number): string => (whole > 0 ? `${((100 * part) / whole).toFixed(1)} %` : '')

/** Series of trends, stickiness and lifecycle: the latest buckets and the total, or the one value of a total display. */
const seriesTable = (series: readonly Row[]): ResultTable => {
  if (series.some((one) => 'aggregated_value' in one)) {
    return { columns: ['Series', 'Value'], rows: series.map((one) => [String(one['label'] ?? ''), number(one['aggregated_value'])]) }
  }
  const labels = (Array.isArray(series[0]?.['labels']) ? series[0]!['labels'] as unknown[] : []).map(String)
  const shown = labels.slice(-LATEST_BUCKETS)
  return {
    columns: ['Series', ...shown, 'Total'],
    rows: series.map((one) => {
      const data = Array.isArray(one['data']) ? one['data'] as unknown[] : []
      return [String(one['label'] ?? ''), ...data.slice(-shown.length).map(number), number(one['count'])]
    }),
  }
}

/** Funnel steps: each step's count and its conversion from the first. */
const funnelTable = (steps: readonly Row[]): ResultTable => {
  const first = typeof steps[0]?.['count'] === 'number' ? steps[0]['count'] as number : 0
  return {
    columns: ['Step', 'Persons', 'Conversion'],
    rows: steps.map((step, i) => [`${i + 1}. ${String(step['custom_name'] ?? step['name'] ?? '')}`, number(step['count']), percent(Number(step['count'] ?? 0), first)]),
  }
}

/** Retention cohorts: each cohort's size and how many came back in each later period. */
const retentionTable = (cohorts: readonly Row[]): ResultTable => {
  const width = Math.max(0, ...cohorts.map((cohort) => (Array.isArray(cohort['values']) ? (cohort['values'] as unknown[]).length : 0)))
  return {
    columns: ['Cohort', ...Array.from({ length: width }, (_, i) => `Period ${i}`)],
    rows: cohorts.map((cohort) => {
      const values = Array.isArray(cohort['values']) ? cohort['values'] as unknown[] : []
      return [String(cohort['label'] ?? cohort['date'] ?? ''), ...values.map((value) => number(isRow(value) ? value['count'] : value))]
    }),
  }
}

/**
 * A table of an insight's result by the kind of its query: series for trends, stickiness and
 * lifecycle; steps for funnels (the first breakdown's, when broken down); cohorts for retention.
 * Null when there is nothing to show.
 */
export const resultTable = (kind: string | null, result: unknown): ResultTable | null => {
  if (!Array.isArray(result) || result.length === 0) return null
  const rows = result.slice(0, MAX_ROWS)
  if (kind === 'FunnelsQuery') {
    const steps = Array.isArray(rows[0]) ? (rows[0] as unknown[]).filter(isRow) : rows.filter(isRow)
    return steps.length > 0 && 'count' in steps[0]! ? funnelTable(steps) : null
  }
  const objects = rows.filter(isRow)
  if (objects.length === 0) return null
  if (kind === 'RetentionQuery') return retentionTable(objects)
  return 'data' in objects[0]! || 'aggregated_value' in objects[0]! ? seriesTable(objects) : null
}

/** A table as aligned plain text, for e-mail and Slack. */
export const tableText = (table: ResultTable): string => {
  const widths = table.columns.map((column, i) => Math.max(column.length, ...table.rows.map((row) => (row[i] ?? '').length)))
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd()
  return [line(table.columns), ...table.rows.map(line)].join('\n')
}
