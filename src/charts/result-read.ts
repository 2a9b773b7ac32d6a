/**
 * Reading a result defensively. A result comes from the engine, from a cache or from an
 * insight saved long ago: every reader here accepts anything and keeps what it can, within
 * bounds, so a result of the wrong shape or of hostile size draws quickly or not at all.
 */

export type Row = Record<string, unknown>

/** Series drawn at most (lines, bars, pie slices, table rows). */
export const MAX_SERIES = 25
/** Points drawn at most per series: the latest ones. */
export const MAX_POINTS = 1000
/** Characters kept of a label. */
export const MAX_LABEL = 80

export const isRow = (value: unknown): value is Row => value !== null && typeof value === 'object' && !Array.isArray(value)

/** The objects among an array's first `limit` items; none when it is not an array. */
export const rowsOf = (value: unknown, limit: number): Row[] =>
  Array.isArray(value) ? value.slice(0, limit).filter(isRow) : []

/** A finite number, or 0. */
export const finite = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0)

/** A finite number, or null. */
export const finiteOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null)

/** An array's last `limit` items as numbers (anything else counting 0); none when it is not an array. */
export const numbersOf = (value: unknown, limit = MAX_POINTS): number[] =>
  Array.isArray(value) ? value.slice(-limit).map(finite) : []

/** A value as a label of at most `MAX_LABEL` characters. */
export const labelOf = (value: unknown): string => {
  const text = value === null || value === undefined ? '' : Array.isArray(value) ? value.map(String).join('::') : String(value)
  return text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text
}

/** A number as people read it: thousands separated, at most two decimals. */
export const formatNumber = (value: number): string =>
  Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 2 })
