import { createRequire } from 'node:module'
import { readFontMetrics } from './font-metrics.js'

const require = createRequire(import.meta.url)

/**
 * The one font pictures are written in: DejaVu Sans, shipped with the `dejavu-fonts-ttf`
 * package. Text is laid out by ECharts and drawn by resvg with this family and these files
 * only, never with the system's fonts, so a picture is the same on every machine.
 */
export const FONT_FAMILY = 'DejaVu Sans'

/** The TrueType files of `FONT_FAMILY`: regular and bold. */
export const FONT_FILES: readonly string[] = [
  require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
]

const metrics = FONT_FILES.map(readFontMetrics)

/**
 * The width of `text` in a CSS `font` (e.g. `bold 16px DejaVu Sans`) as the bundled font draws
 * it. ECharts lays text out with this (it has no canvas to measure with on the server), so
 * labels are spaced, thinned and cut by the widths resvg then draws them at.
 */
export const measureText = (text: string, font: string | undefined): { width: number } => {
  const size = Number(/(\d+(?:\.\d+)?)px/.exec(font ?? '')?.[1] ?? 12)
  const bold = /\bbold\b|\b[6-9]00\b/.test(font ?? '')
  return { width: metrics[bold ? 1 : 0]!.width(text ?? '', Number.isFinite(size) ? size : 12) }
}
