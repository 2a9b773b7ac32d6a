import { renderAsync } from '@resvg/resvg-js'
import { DEFAULT_CHART_SIZE, type ChartInput, type ChartSize } from './chart-input.js'
import { chartOption } from './chart-option.js'
import { initSsrChart } from './echarts.js'
import { FONT_FAMILY, FONT_FILES } from './fonts.js'
import { messageOption, NO_RESULTS, type ChartOption } from './frame.js'
import { BACKGROUND } from './palette.js'

/** The sizes a picture may have, in CSS pixels: anything asked outside them is brought within. */
const MIN_SIDE = 120
const MAX_SIDE = 4000

const side = (value: unknown, fallback: number): number =>
  typeof value === 'number' && Number.isFinite(value) ? Math.min(MAX_SIDE, Math.max(MIN_SIDE, Math.round(value))) : fallback

const sizeOf = (size: ChartSize): ChartSize => ({
  width: side(size?.width, DEFAULT_CHART_SIZE.width),
  height: side(size?.height, DEFAULT_CHART_SIZE.height),
})

/** Lays out an option with ECharts' server-side SVG renderer: no DOM, no canvas. */
const drawSvg = (option: ChartOption, size: ChartSize): string => {
  const chart = initSsrChart(size.width, size.height)
  try {
    chart.setOption(option)
    return chart.renderToSVGString()
  } finally {
    chart.dispose()
  }
}

/**
 * An insight's result drawn as an SVG document of `size` (800 × 450 unless asked). Never
 * throws for a result it cannot read: the picture then says "No results yet".
 */
export const renderChartSvg = (input: ChartInput, size: ChartSize = DEFAULT_CHART_SIZE): string => {
  const box = sizeOf(size)
  try {
    return drawSvg(chartOption(input, box), box)
  } catch {
    return drawSvg(messageOption(input, box, NO_RESULTS), box)
  }
}

/**
 * The same picture as a PNG of `size` pixels. resvg rasterises on its own thread
 * (`renderAsync`), with the bundled font only, so the event loop is not held while it draws.
 */
export const renderChartPng = async (input: ChartInput, size: ChartSize = DEFAULT_CHART_SIZE): Promise<Buffer> => {
  const svg = renderChartSvg(input, size)
  const image = await renderAsync(svg, {
    fitTo: { mode: 'original' },
    background: BACKGROUND,
    font: { fontFiles: [...FONT_FILES], loadSystemFonts: false, defaultFontFamily: FONT_FAMILY },
  })
  return image.asPng()
}
