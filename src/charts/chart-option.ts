import type { ChartInput, ChartSize } from './chart-input.js'
import { frameOption, messageOption, NO_RESULTS, type ChartOption } from './frame.js'
import { funnelOption } from './funnel-option.js'
import { LIFECYCLE_COLORS, seriesColor } from './palette.js'
import { retentionOption } from './retention-option.js'
import { readSeries, type DrawnSeries } from './series-read.js'
import { barValueOption, boldNumberOption, pieOption, tableOption } from './totals-option.js'
import { seriesChartOption, type SeriesShape } from './trends-option.js'

/** How each display that draws series over time lays them out. */
const SERIES_DISPLAYS: Readonly<Record<string, SeriesShape>> = {
  ActionsLineGraph: 'line',
  ActionsLineGraphCumulative: 'line',
  ActionsAreaGraph: 'area',
  ActionsBar: 'stacked-bar',
  ActionsStackedBar: 'stacked-bar',
  ActionsUnstackedBar: 'bar',
}

type Body = (input: ChartInput, size: ChartSize) => ChartOption | null

/**
 * The body of a trends or stickiness picture by its display. Displays of one number per series
 * draw it; the others (and those Hedgelog does not draw, like `CalendarHeatmap` or `BoxPlot`)
 * draw series over time.
 */
const seriesBody: Body = (input, size) => {
  const set = readSeries(input.result)
  if (set === null) return null
  switch (input.display) {
    case 'BoldNumber':
      return boldNumberOption(set.series, size)
    case 'ActionsPie':
      return pieOption(set.series, size)
    case 'ActionsBarValue':
    case 'WorldMap':
      return barValueOption(set.series, size)
    case 'ActionsTable':
      return tableOption(set.series, set.labels, size)
    default:
      return set.labels.length === 0 ? null : seriesChartOption(set, SERIES_DISPLAYS[input.display ?? ''] ?? 'line', size)
  }
}

const LIFECYCLE_ORDER = ['new', 'resurrecting', 'returning', 'dormant'] as const

const lifecycleColor = (one: DrawnSeries): string =>
  LIFECYCLE_COLORS[one.status as keyof typeof LIFECYCLE_COLORS] ?? seriesColor(one.index)

/** Lifecycle: stacked bars per period, new, resurrecting and returning above the axis, dormant below. */
const lifecycleBody: Body = (input, size) => {
  const set = readSeries(input.result)
  if (set === null || set.labels.length === 0) return null
  const rank = (one: DrawnSeries) => {
    const i = LIFECYCLE_ORDER.indexOf(one.status as (typeof LIFECYCLE_ORDER)[number])
    return i < 0 ? LIFECYCLE_ORDER.length + one.index : i
  }
  const series = [...set.series]
    .sort((a, b) => rank(a) - rank(b))
    .map((one) => ({ ...one, label: one.status === null ? one.label : one.status.charAt(0).toUpperCase() + one.status.slice(1) }))
  return seriesChartOption({ labels: set.labels, series }, 'stacked-bar', size, lifecycleColor)
}

/** What draws the body of each kind of insight; an insight of no kind is drawn as a trend. */
const BODIES: Readonly<Record<string, Body>> = {
  TrendsQuery: seriesBody,
  StickinessQuery: seriesBody,
  LifecycleQuery: lifecycleBody,
  FunnelsQuery: (input, size) => funnelOption(input.display, input.result, size),
  RetentionQuery: (input, size) => retentionOption(input.result, size),
}

/**
 * The whole ECharts option of a picture: the frame (title, range, timezone) and the body the
 * insight's kind and display call for; the frame saying "No results yet" when there is nothing
 * to draw or the result is not of its kind's shape.
 */
export const chartOption = (input: ChartInput, size: ChartSize): ChartOption => {
  const body = BODIES[input.kind ?? 'TrendsQuery']?.(input, size) ?? null
  return body === null ? messageOption(input, size, NO_RESULTS) : { ...frameOption(input, size), ...body }
}
