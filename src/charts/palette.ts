/**
 * The colours pictures are drawn in. Series take their colour by position, so the same insight
 * always draws the same way and a reader (or a test) can tell series apart by colour.
 */

/** Series colours in order: the i-th series is drawn in `SERIES_COLORS[i % SERIES_COLORS.length]`. */
export const SERIES_COLORS: readonly string[] = [
  '#1d4aff', '#f04f58', '#42827e', '#ce0e74', '#e4a604', '#621da6', '#529a0a', '#0476fb',
  '#fe729e', '#35416b', '#41cbc4', '#b64b02', '#9e8a1e', '#a56eff', '#30825e',
]

/** The colour of the series at `index`. */
export const seriesColor = (index: number): string => SERIES_COLORS[index % SERIES_COLORS.length]!

/** Lifecycle statuses keep one colour each, whatever their order in the result. */
export const LIFECYCLE_COLORS: Readonly<Record<'new' | 'returning' | 'resurrecting' | 'dormant', string>> = {
  new: '#29a329',
  returning: '#1d4aff',
  resurrecting: '#a56eff',
  dormant: '#e5403a',
}

export const BACKGROUND = '#ffffff'
export const TEXT_COLOR = '#1f2430'
export const MUTED_TEXT_COLOR = '#5f6675'
export const LINE_COLOR = '#e1e3e8'

const channels = (hex: string): [number, number, number] => {
  const n = Number.parseInt(hex.slice(1), 16)
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255]
}

/** `color` laid over white at `share` (0–1) of its strength, as an opaque colour. */
export const tint = (color: string, share: number): string => {
  const s = Math.min(1, Math.max(0, Number.isFinite(share) ? share : 0))
  const mixed = channels(color).map((c) => Math.round(255 + (c - 255) * s))
  return `#${mixed.map((c) => c.toString(16).padStart(2, '0')).join('')}`
}
