import { categoryAxis, valueAxis } from './axes.js'
import type { ChartSize } from './chart-input.js'
import { bodyOf, legendOption, type ChartOption } from './frame.js'
import { seriesColor } from './palette.js'
import type { DrawnSeries, DrawnSeriesSet } from './series-read.js'

/** Points beyond which a line is drawn without a marker at each point. */
const MARKED_POINTS = 40

export type SeriesShape = 'line' | 'area' | 'bar' | 'stacked-bar'

/** The grid of a chart with axes: the body of the frame, axis labels inside it. */
export const gridOf = (size: ChartSize, legend: boolean) => {
  const body = bodyOf(size, legend)
  return { left: body.left, top: body.top, width: body.width, height: body.height, outerBoundsMode: 'same', outerBoundsContain: 'axisLabel' }
}

const seriesOption = (one: DrawnSeries, shape: SeriesShape, color: string, points: number) => {
  const name = one.label
  if (shape === 'bar' || shape === 'stacked-bar') {
    return { type: 'bar', name, data: one.data, color, ...(shape === 'stacked-bar' ? { stack: 'total' } : {}), barMaxWidth: 48 }
  }
  return {
    type: 'line',
    name,
    data: one.data,
    color,
    showSymbol: points <= MARKED_POINTS,
    symbolSize: 5,
    lineStyle: { width: 2, color },
    ...(shape === 'area' ? { stack: 'total', areaStyle: { color, opacity: 0.35 } } : {}),
  }
}

/**
 * Series over time (trends, stickiness, lifecycle): one line, area or bar series per result
 * series, in its palette colour (or the one `colorOf` gives), with a legend when there are
 * several.
 */
export const seriesChartOption = (
  set: DrawnSeriesSet,
  shape: SeriesShape,
  size: ChartSize,
  colorOf: (one: DrawnSeries) => string = (one) => seriesColor(one.index),
  valueSuffix = '',
): ChartOption => {
  const legend = set.series.length > 1
  const grid = gridOf(size, legend)
  return {
    grid,
    ...(legend ? { legend: legendOption() } : {}),
    xAxis: categoryAxis(set.labels, grid.width, shape === 'bar' || shape === 'stacked-bar' ? {} : { boundaryGap: false }),
    yAxis: valueAxis({}, valueSuffix),
    series: set.series.map((one) => seriesOption(one, shape, colorOf(one), set.labels.length)),
  }
}
