import { PNG } from 'pngjs'
import type { ChartInput } from '../../../src/charts/chart-input.js'

export interface Picture {
  readonly width: number
  readonly height: number
  readonly data: Buffer
}

export interface Rect {
  readonly left: number
  readonly top: number
  readonly right: number
  readonly bottom: number
}

export const decodePng = (png: Buffer): Picture => {
  const image = PNG.sync.read(png)
  return { width: image.width, height: image.height, data: image.data }
}

const channels = (hex: string): [number, number, number] => {
  const n = Number.parseInt(hex.slice(1), 16)
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255]
}

const countIn = (picture: Picture, rect: Rect, keep: (r: number, g: number, b: number) => boolean): number => {
  let count = 0
  for (let y = Math.max(0, rect.top); y < Math.min(picture.height, rect.bottom); y++) {
    for (let x = Math.max(0, rect.left); x < Math.min(picture.width, rect.right); x++) {
      const i = (y * picture.width + x) * 4
      if (keep(picture.data[i]!, picture.data[i + 1]!, picture.data[i + 2]!)) count++
    }
  }
  return count
}

/** Pixels within `rect` whose colour is within `tolerance` (summed over the channels) of `hex`. */
export const pixelsOf = (picture: Picture, hex: string, rect: Rect, tolerance = 30): number => {
  const [r, g, b] = channels(hex)
  return countIn(picture, rect, (pr, pg, pb) => Math.abs(pr - r) + Math.abs(pg - g) + Math.abs(pb - b) <= tolerance)
}

/** Pixels within `rect` that are not (nearly) white. */
export const inkIn = (picture: Picture, rect: Rect): number => countIn(picture, rect, (r, g, b) => r + g + b < 3 * 235)

/** The band where the title is written. */
export const titleBand = (picture: Picture): Rect => ({ left: 0, top: 8, right: picture.width, bottom: 30 })

/** Below the header, where the chart itself is drawn. */
export const plotArea = (picture: Picture): Rect => ({ left: 0, top: 60, right: picture.width, bottom: picture.height })

/** SVG paths drawn as an unfilled line in `color`, without a transform (series lines, not point markers or legend icons). */
export const linePathsOf = (svg: string, color: string): number =>
  (svg.match(/<path [^>]*>/g) ?? []).filter((path) => path.includes('fill="none"') && path.includes(`stroke="${color}"`) && !path.includes('transform=')).length

/** SVG paths filled with `color`. */
export const filledPathsOf = (svg: string, color: string): number =>
  (svg.match(/<path [^>]*>/g) ?? []).filter((path) => path.includes(`fill="${color}"`)).length

export const input = (overrides: Partial<ChartInput>): ChartInput => ({
  kind: 'TrendsQuery',
  display: null,
  name: 'Weekly signups',
  dateRange: { date_from: '2026-11-01T00:00:00+01:00', date_to: '2026-11-27T23:59:59+01:00' },
  timezone: 'Europe/Paris',
  result: null,
  ...overrides,
})

export const days = (n: number): string[] => Array.from({ length: n }, (_, i) => `${i + 1}-Nov-2026`)

/** A trends result of `count` series over `n` days, as the engine writes it. */
export const trendsSeries = (count: number, n = 14) =>
  Array.from({ length: count }, (_, s) => {
    const data = Array.from({ length: n }, (_, i) => 5 + ((i * (s + 3)) % 11) + s * 2)
    return { label: `event ${s}`, labels: days(n), days: days(n).map((_, i) => `2026-11-${String(i + 1).padStart(2, '0')}`), data, count: data.reduce((a, b) => a + b, 0) }
  })

/** A trends result of one number per series (`BoldNumber`, `ActionsPie`, ...), as the engine writes it. */
export const totalSeries = (count: number) =>
  Array.from({ length: count }, (_, s) => ({ label: `value ${s}`, data: [], days: [], count: 0, aggregated_value: 100 - s * 7, breakdown_value: `value ${s}` }))
