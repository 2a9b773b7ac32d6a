import { escapeHtml, escapeText } from './escape.js'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The kind of an insight's query, looking through an `InsightVizNode` to its source; null when it has none. */
export const queryKind = (query: unknown): string | null => {
  if (!isObject(query)) return null
  const source = query['kind'] === 'InsightVizNode' || query['kind'] === 'DataVisualizationNode' ? query['source'] : query
  return isObject(source) && typeof source['kind'] === 'string' ? source['kind'] : null
}

/** One row of an insight's figures: what it counts, and the number. */
export interface Figure {
  readonly label: string
  readonly value: number
}

/** An insight's figures under their column headings. */
export interface Figures {
  readonly heading: string
  readonly valueHeading: string
  readonly rows: readonly Figure[]
}

const numberOf = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)

const labelOf = (...parts: unknown[]): string =>
  parts.filter((part) => part !== null && part !== undefined && part !== '')
    .map((part) => (typeof part === 'string' ? part : Array.isArray(part) ? part.join(', ') : JSON.stringify(part)))
    .join(' · ')

/** A series' total over the range: its one aggregated value, else its count, else the sum of its points. */
const seriesTotal = (series: Json): number => {
  const aggregated = numberOf(series['aggregated_value'])
  if (aggregated !== null) return aggregated
  const count = numberOf(series['count'])
  if (count !== null) return count
  const data = Array.isArray(series['data']) ? series['data'] : []
  return data.reduce<number>((sum, point) => sum + (numberOf(point) ?? 0), 0)
}

const seriesFigures = (result: unknown[]): Figures => ({
  heading: 'Series',
  valueHeading: 'Total',
  rows: result.filter(isObject).map((series) => ({
    label: labelOf(series['label'], series['breakdown_value'], series['compare_label']),
    value: seriesTotal(series),
  })),
})

const stepsFigures = (result: unknown[]): Figures => {
  const groups: unknown[][] = result.every(Array.isArray) ? (result as unknown[][]) : [result]
  const rows: Figure[] = []
  for (const steps of groups) {
    for (const step of steps.filter(isObject)) {
      const name = step['custom_name'] ?? step['name']
      rows.push({ label: labelOf(groups.length > 1 ? step['breakdown_value'] : null, `${(numberOf(step['order']) ?? 0) + 1}. ${String(name ?? '')}`), value: numberOf(step['count']) ?? 0 })
    }
  }
  return { heading: 'Step', valueHeading: 'People', rows }
}

const cohortFigures = (result: unknown[]): Figures => ({
  heading: 'Cohort',
  valueHeading: 'Size',
  rows: result.filter(isObject).map((cohort) => {
    const first = Array.isArray(cohort['values']) ? cohort['values'][0] : undefined
    const date = typeof cohort['date'] === 'string' ? cohort['date'].slice(0, 10) : null
    return { label: labelOf(cohort['breakdown_value'], date ?? cohort['label']), value: isObject(first) ? numberOf(first['count']) ?? 0 : 0 }
  }),
})

/** The numbers behind an insight's chart, by the kind of its query; null when there are none to show. */
export const figuresOf = (insight: Json): Figures | null => {
  const result = insight['result']
  if (!Array.isArray(result) || result.length === 0) return null
  switch (queryKind(insight['query'])) {
    case 'TrendsQuery': case 'StickinessQuery': case 'LifecycleQuery': return seriesFigures(result)
    case 'FunnelsQuery': return stepsFigures(result)
    case 'RetentionQuery': return cohortFigures(result)
    default: return null
  }
}

const FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 })

/** The most rows a table shows; the rest are counted below it. */
export const MAX_FIGURE_ROWS = 25

/** An insight's figures as a table; each number's cell holds it exactly in `data-value`. */
export const figuresTable = (figures: Figures): string => {
  const shown = figures.rows.slice(0, MAX_FIGURE_ROWS)
  const rows = shown.map((row) =>
    `<tr><th scope="row">${escapeText(row.label, '(none)')}</th><td data-value="${escapeHtml(String(row.value))}">${escapeHtml(FORMAT.format(row.value))}</td></tr>`)
  const more = figures.rows.length - shown.length
  const footer = more > 0 ? `<tfoot><tr><td colspan="2">and ${more} more</td></tr></tfoot>` : ''
  return `<table class="figures"><thead><tr><th scope="col">${escapeHtml(figures.heading)}</th><th scope="col">${escapeHtml(figures.valueHeading)}</th></tr></thead><tbody>${rows.join('')}</tbody>${footer}</table>`
}
