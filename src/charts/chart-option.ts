import type { ChartInput, ChartSize } from './chart-input.js'
import { frameOption, messageOption, NO_RESULTS, type ChartOption } from './frame.js'
import { readSeries } from './series-read.js'
import { seriesChartOption, type SeriesShape } from './trends-option.js'

/** How each trends display that draws series over time lays them out. */
const SERIES_DISPLAYS: Readonly<Record<string, SeriesShape>> = {
  ActionsLineGraph: 'line',
  ActionsLineGraphCumulative: 'line',
  ActionsAreaGraph: 'area',
  ActionsBar: 'stacked-bar',
  ActionsStackedBar: 'stacked-bar',
  ActionsUnstackedBar: 'bar',
}

/** The body of a trends picture, or null when the result holds nothing to draw. */
const trendsBody = (input: ChartInput, size: ChartSize): ChartOption | null => {
  const set = readSeries(input.result)
  if (set === null) return null
  const shape = SERIES_DISPLAYS[input.display ?? 'ActionsLineGraph'] ?? 'line'
  return set.labels.length === 0 ? null : seriesChartOption(set, shape, size)
}

/** What draws the body of each kind of insight. */
const BODIES: Readonly<Record<string, (input: ChartInput, size: ChartSize) => ChartOption | null>> = {
  TrendsQuery: trendsBody,
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
