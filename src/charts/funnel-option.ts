import { categoryAxis, valueAxis } from './axes.js'
import type { ChartSize } from './chart-input.js'
import { legendOption, type ChartOption } from './frame.js'
import { FONT_FAMILY } from './fonts.js'
import { SERIES_COLORS, seriesColor, TEXT_COLOR, tint } from './palette.js'
import { finite, finiteOrNull, formatNumber, isRow, labelOf, MAX_SERIES, rowsOf, type Row } from './result-read.js'
import { readSeries } from './series-read.js'
import { gridOf, seriesChartOption } from './trends-option.js'

/** Steps drawn at most. */
const MAX_STEPS = 20
/** Bins of a time-to-convert histogram drawn at most. */
const MAX_BINS = 100

const percentOf = (part: number, whole: number): number => (whole > 0 ? Math.round((1000 * part) / whole) / 10 : 0)

const stepName = (step: Row, i: number): string => `${i + 1}. ${labelOf(step['custom_name'] ?? step['name'] ?? '')}`

/** The steps of a funnel result: one list, or one per breakdown value. */
const stepListsOf = (result: unknown): Row[][] => {
  if (!Array.isArray(result) || result.length === 0) return []
  const lists = Array.isArray(result[0]) ? result.slice(0, MAX_SERIES).map((list) => rowsOf(list, MAX_STEPS)) : [rowsOf(result, MAX_STEPS)]
  return lists.map((steps) => steps.filter((step) => 'count' in step)).filter((steps) => steps.length > 0)
}

const breakdownName = (steps: Row[]): string => labelOf(steps[0]?.['breakdown_value'] ?? steps[0]?.['breakdown'] ?? '')

/**
 * Funnel steps (`steps`, the default): a bar per step of how many reached it, over a pale bar of
 * how many entered, labelled with the count and the conversion from the first step. Broken down,
 * a bar per value at each step, each value in its colour.
 */
const stepsOption = (result: unknown, size: ChartSize): ChartOption | null => {
  const lists = stepListsOf(result)
  if (lists.length === 0) return null
  const names = lists[0]!.map(stepName)
  const broken = lists.length > 1 || breakdownName(lists[0]!) !== ''
  const room = gridOf(size, broken)
  // Room above the tallest bar for its label.
  const grid = { ...room, top: room.top + 14, height: Math.max(1, room.height - 14) }
  const label = (first: number) => ({
    show: true,
    position: 'top',
    distance: 6,
    fontFamily: FONT_FAMILY,
    fontSize: 11,
    color: TEXT_COLOR,
    formatter: (p: { value: number }) => (broken ? `${percentOf(p.value, first)}%` : `${formatNumber(p.value)} · ${percentOf(p.value, first)}%`),
  })
  const series = lists.map((steps, i) => {
    const counts = names.map((_, s) => finite(steps[s]?.['count']))
    return {
      type: 'bar',
      name: broken ? breakdownName(steps) : 'Persons',
      data: counts,
      color: seriesColor(i),
      barMaxWidth: 64,
      z: 3,
      label: lists.length <= 4 ? label(counts[0] ?? 0) : { show: false },
    }
  })
  const entered = finite(lists[0]![0]?.['count'])
  const backdrop = broken ? [] : [{ type: 'bar', name: 'Entered', data: names.map(() => entered), color: tint(SERIES_COLORS[0]!, 0.15), barMaxWidth: 64, barGap: '-100%', silent: true, z: 2 }]
  return {
    grid,
    ...(broken ? { legend: legendOption() } : {}),
    xAxis: categoryAxis(names, grid.width),
    yAxis: valueAxis(),
    series: [...series, ...backdrop],
  }
}

/** Funnel trends (`trends`): the conversion rate per period, a line per breakdown value. */
const trendsOption = (result: unknown, size: ChartSize): ChartOption | null => {
  const rows = rowsOf(result, MAX_SERIES).map((row) => ({ ...row, label: row['breakdown_value'] !== undefined ? labelOf(row['breakdown_value']) : 'Conversion rate' }))
  const set = readSeries(rows)
  return set === null || set.labels.length === 0 ? null : seriesChartOption(set, 'line', size, undefined, '%')
}

const duration = (seconds: number): string => {
  if (seconds < 60) return `${Math.round(seconds)}s`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${Math.round(seconds % 60)}s`.replace(/ 0s$/, '')
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h ${Math.round((seconds % 3600) / 60)}m`.replace(/ 0m$/, '')
  return `${Math.floor(seconds / 86400)}d ${Math.round((seconds % 86400) / 3600)}h`.replace(/ 0h$/, '')
}

/** Time to convert (`time_to_convert`): how many converted within each bin of time. */
const timeToConvertOption = (result: unknown, size: ChartSize): ChartOption | null => {
  const bins = isRow(result) && Array.isArray(result['bins'])
    ? result['bins'].slice(0, MAX_BINS).filter((bin): bin is unknown[] => Array.isArray(bin) && finiteOrNull(bin[0]) !== null)
    : []
  if (bins.length === 0) return null
  const grid = gridOf(size, false)
  return {
    grid,
    xAxis: categoryAxis(bins.map((bin) => duration(finite(bin[0]))), grid.width),
    yAxis: valueAxis(),
    series: [{ type: 'bar', name: 'Converted', data: bins.map((bin) => finite(bin[1])), color: seriesColor(0), barCategoryGap: '10%' }],
  }
}

/** The body of a funnel picture by its `funnelVizType`, or null when the result holds nothing to draw. */
export const funnelOption = (display: string | null, result: unknown, size: ChartSize): ChartOption | null => {
  if (display === 'trends') return trendsOption(result, size)
  if (display === 'time_to_convert') return timeToConvertOption(result, size)
  return stepsOption(result, size)
}
