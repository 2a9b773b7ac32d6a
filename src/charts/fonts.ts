import { createRequire } from 'node:module'

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
