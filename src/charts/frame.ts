import type { ChartInput, ChartSize } from './chart-input.js'
import { FONT_FAMILY } from './fonts.js'
import { BACKGROUND, MUTED_TEXT_COLOR, TEXT_COLOR } from './palette.js'
import { labelOf } from './result-read.js'

/** An ECharts option as this folder builds it: plain data, checked by ECharts when set. */
export type ChartOption = Record<string, unknown>

/** The height of the band at the top that holds the title and the range. */
export const HEADER_HEIGHT = 56
/** The margin around what is drawn. */
export const MARGIN = 16
/** The height kept at the bottom for a legend, when there is one. */
export const LEGEND_HEIGHT = 28

const DAY = /^\d{4}-\d{2}-\d{2}/

/** A bound of a range as its day (`2026-11-01`), or as written when it is not a date. */
const dayOf = (bound: unknown): string => {
  const text = labelOf(bound)
  return DAY.exec(text)?.[0] ?? text
}

/** The subtitle: the range the result counts and the timezone, e.g. `2026-11-01 – 2026-11-27 · Europe/Paris`. */
export const subtitleOf = (input: Pick<ChartInput, 'dateRange' | 'timezone'>): string => {
  const zone = labelOf(input.timezone)
  const range = input.dateRange
  if (range === null || typeof range !== 'object') return zone
  const span = `${dayOf(range.date_from)} – ${dayOf(range.date_to)}`
  return zone === '' ? span : `${span} · ${zone}`
}

/** The title: the insight's name, or a stand-in when it has none. */
export const titleOf = (input: Pick<ChartInput, 'name'>): string => {
  const name = labelOf(input.name).trim()
  return name === '' ? 'Untitled insight' : name
}

/** What every picture has: a white ground, the bundled font, no animation, the title and the range. */
export const frameOption = (input: ChartInput, size: ChartSize): ChartOption => ({
  animation: false,
  backgroundColor: BACKGROUND,
  textStyle: { fontFamily: FONT_FAMILY, color: TEXT_COLOR },
  title: {
    text: titleOf(input),
    subtext: subtitleOf(input),
    left: MARGIN,
    top: 10,
    itemGap: 10,
    textStyle: { fontFamily: FONT_FAMILY, fontSize: 16, fontWeight: 'bold', color: TEXT_COLOR, width: size.width - 2 * MARGIN, overflow: 'truncate' },
    subtextStyle: { fontFamily: FONT_FAMILY, fontSize: 12, color: MUTED_TEXT_COLOR, width: size.width - 2 * MARGIN, overflow: 'truncate' },
  },
})

/** The frame with one line of text in its middle, e.g. "No results yet". */
export const messageOption = (input: ChartInput, size: ChartSize, message: string): ChartOption => ({
  ...frameOption(input, size),
  graphic: [{
    type: 'text',
    left: 'center',
    top: HEADER_HEIGHT + (size.height - HEADER_HEIGHT) / 2 - 10,
    style: { text: message, fontFamily: FONT_FAMILY, fontSize: 16, fill: MUTED_TEXT_COLOR },
  }],
})

export const NO_RESULTS = 'No results yet'

/** The rectangle below the header, inside the margins, above the legend when there is one. */
export const bodyOf = (size: ChartSize, legend: boolean) => ({
  left: MARGIN,
  top: HEADER_HEIGHT + 8,
  width: Math.max(1, size.width - 2 * MARGIN),
  height: Math.max(1, size.height - HEADER_HEIGHT - 8 - MARGIN - (legend ? LEGEND_HEIGHT : 0)),
})

/** A legend along the bottom, scrolling when its names do not fit. */
export const legendOption = () => ({
  type: 'scroll',
  bottom: 8,
  left: MARGIN,
  right: MARGIN,
  itemWidth: 14,
  itemHeight: 8,
  textStyle: { fontFamily: FONT_FAMILY, fontSize: 11, color: TEXT_COLOR, width: 160, overflow: 'truncate' },
})
