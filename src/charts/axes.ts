import { FONT_FAMILY } from './fonts.js'
import { LINE_COLOR, MUTED_TEXT_COLOR } from './palette.js'
import { formatNumber } from './result-read.js'

const AXIS_FONT_SIZE = 11
/** About the width of one character of the axis font (DejaVu Sans at 11 px). */
const CHARACTER_WIDTH = 6.6
/** Labels wider than this are cut short with an ellipsis. */
const MAX_LABEL_WIDTH = 120

/**
 * A category axis whose labels do not overlap: ECharts keeps every n-th label when they do not
 * all fit (`interval: 'auto'`, `hideOverlap`), and labels are turned when even a few of them
 * would not fit side by side.
 */
export const categoryAxis = (labels: readonly string[], plotWidth: number, extra: Record<string, unknown> = {}) => {
  const widest = Math.min(MAX_LABEL_WIDTH, Math.max(0, ...labels.map((label) => label.length)) * CHARACTER_WIDTH)
  const fitting = plotWidth / (widest + 12)
  const rotate = fitting < Math.min(labels.length, 4) ? 40 : 0
  return {
    type: 'category',
    data: labels,
    axisLine: { lineStyle: { color: LINE_COLOR } },
    axisTick: { show: false },
    axisLabel: {
      fontFamily: FONT_FAMILY,
      fontSize: AXIS_FONT_SIZE,
      color: MUTED_TEXT_COLOR,
      interval: 'auto',
      hideOverlap: true,
      rotate,
      width: MAX_LABEL_WIDTH,
      overflow: 'truncate',
    },
    ...extra,
  }
}

/** A value axis with light grid lines and numbers written with thousands separators. */
export const valueAxis = (extra: Record<string, unknown> = {}, suffix = '') => ({
  type: 'value',
  splitLine: { lineStyle: { color: LINE_COLOR } },
  axisLabel: {
    fontFamily: FONT_FAMILY,
    fontSize: AXIS_FONT_SIZE,
    color: MUTED_TEXT_COLOR,
    hideOverlap: true,
    formatter: (value: number) => `${formatNumber(value)}${suffix}`,
  },
  ...extra,
})
