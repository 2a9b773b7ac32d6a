import { categoryAxis, valueAxis } from './axes.js'
import type { ChartSize } from './chart-input.js'
import { bodyOf, legendOption, type ChartOption } from './frame.js'
import { FONT_FAMILY } from './fonts.js'
import { MUTED_TEXT_COLOR, seriesColor, TEXT_COLOR } from './palette.js'
import { formatNumber } from './result-read.js'
import type { DrawnSeries } from './series-read.js'
import { tableElements } from './table-graphic.js'
import { gridOf } from './trends-option.js'

/** Pie slices with labels beside them at most; beyond, the legend names them. */
const LABELLED_SLICES = 8

const byTotal = (series: readonly DrawnSeries[]): DrawnSeries[] => [...series].sort((a, b) => b.total - a.total)

/** `BoldNumber`: the first series' number, drawn big in its colour, its name below. */
export const boldNumberOption = (series: readonly DrawnSeries[], size: ChartSize): ChartOption => {
  const one = series[0]!
  const body = bodyOf(size, false)
  const value = formatNumber(one.total)
  const fontSize = Math.max(12, Math.floor(Math.min(body.height * 0.5, body.width / (value.length * 0.65), 120)))
  const middle = body.top + body.height / 2
  return {
    graphic: [
      { type: 'text', x: body.left + body.width / 2, y: middle - 8, silent: true, style: { text: value, fill: seriesColor(one.index), fontFamily: FONT_FAMILY, fontSize, fontWeight: 'bold', align: 'center', verticalAlign: 'middle' } },
      { type: 'text', x: body.left + body.width / 2, y: middle + fontSize / 2 + 6, silent: true, style: { text: one.label, fill: MUTED_TEXT_COLOR, fontFamily: FONT_FAMILY, fontSize: 13, align: 'center', verticalAlign: 'top', width: body.width, overflow: 'truncate' } },
    ],
  }
}

/** `ActionsPie`: a slice per series of its total, largest first; negative and zero totals have no slice. */
export const pieOption = (series: readonly DrawnSeries[], size: ChartSize): ChartOption | null => {
  const slices = byTotal(series).filter((one) => one.total > 0)
  if (slices.length === 0) return null
  const body = bodyOf(size, true)
  const labelled = slices.length <= LABELLED_SLICES
  return {
    legend: legendOption(),
    series: [{
      type: 'pie',
      center: [body.left + body.width / 2, body.top + body.height / 2],
      radius: ['0%', Math.max(10, Math.min(body.width, body.height) / 2 - (labelled ? 20 : 4))],
      avoidLabelOverlap: true,
      label: labelled
        ? { show: true, fontFamily: FONT_FAMILY, fontSize: 11, color: TEXT_COLOR, formatter: '{d}%' }
        : { show: false },
      labelLine: { show: labelled, length: 6, length2: 6 },
      data: slices.map((one) => ({ name: one.label, value: one.total, itemStyle: { color: seriesColor(one.index) } })),
    }],
  }
}

/**
 * `ActionsBarValue`: a horizontal bar per series of its total, largest at the top, each in its
 * colour. `WorldMap` draws the same, one bar per country: Hedgelog ships no map shapes, and a
 * breakdown by country reads as well as bars of values per country code.
 */
export const barValueOption = (series: readonly DrawnSeries[], size: ChartSize): ChartOption => {
  const bars = byTotal(series)
  const grid = gridOf(size, false)
  return {
    grid: { ...grid, right: 56 },
    xAxis: valueAxis(),
    yAxis: { ...categoryAxis(bars.map((one) => one.label), grid.height), inverse: true },
    series: [{
      type: 'bar',
      barMaxWidth: 28,
      label: { show: true, position: 'right', fontFamily: FONT_FAMILY, fontSize: 11, color: TEXT_COLOR, formatter: (p: { value: number }) => formatNumber(p.value) },
      data: bars.map((one) => ({ value: one.total, itemStyle: { color: seriesColor(one.index) } })),
    }],
  }
}

/** `ActionsTable`: a row per series with its colour, name and total; its latest buckets when it has them. */
export const tableOption = (series: readonly DrawnSeries[], labels: readonly string[], size: ChartSize): ChartOption => {
  const buckets = series.every((one) => one.data.length === 0) ? 0 : Math.max(0, Math.min(labels.length, Math.floor((size.width - 260) / 90)))
  const shown = labels.slice(labels.length - buckets)
  const columns = ['Series', ...shown, buckets === 0 ? 'Value' : 'Total']
  const rows = series.map((one) => [one.label, ...one.data.slice(one.data.length - buckets).map(formatNumber), formatNumber(one.total)])
  return { graphic: tableElements({ columns, rows, swatch: (row) => seriesColor(series[row]!.index) }, size) }
}
