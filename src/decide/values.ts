/**
 * How PostHog's server compares property values: JSON strings as they are, anything else as
 * compact JSON (`5` → "5", `true` → "true").
 */
export const stringRepresentation = (value: unknown): string =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null')

const UPPER_ASCII = /[A-Z]/
const UPPER_ASCII_ALL = /[A-Z]/g
const toLower = (letter: string): string => String.fromCharCode(letter.charCodeAt(0) + 32)

/** Lower-cases ASCII letters only, as the server's `icontains` and prefix/suffix operators do. */
export const asciiLower = (text: string): string => (UPPER_ASCII.test(text) ? text.replace(UPPER_ASCII_ALL, toLower) : text)

// Rust's `str::parse::<f64>` grammar: no surrounding spaces, optional sign, digits with an
// optional point, optional exponent, or inf/infinity/nan in any case.
const F64_SYNTAX = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i

/** Parses text as the server parses a number; null when it is not one. */
export const parseF64 = (text: string): number | null => {
  if (!F64_SYNTAX.test(text)) return null
  const unsigned = text.replace(/^[+-]/, '').toLowerCase()
  const negative = text.startsWith('-')
  if (unsigned === 'nan') return Number.NaN
  if (unsigned === 'inf' || unsigned === 'infinity') return negative ? -Infinity : Infinity
  return Number(text)
}

/** A JSON number as it is, anything else through its string representation. */
export const toF64 = (value: unknown): number | null =>
  typeof value === 'number' ? value : parseF64(stringRepresentation(value))

/** True for a boolean, "true"/"false" in any case, or an array made only of such values. */
export const isBooleanLike = (value: unknown): boolean => {
  if (typeof value === 'boolean') return true
  if (typeof value === 'string') {
    const lower = value.toLowerCase()
    return lower === 'true' || lower === 'false'
  }
  return Array.isArray(value) && value.every(isBooleanLike)
}

/** Boolean true, "true" in any case, or an array whose items are all truthy in this sense. */
export const isTruthy = (value: unknown): boolean => {
  if (typeof value === 'boolean') return value
  if (typeof value === 'string') return value.toLowerCase() === 'true'
  return Array.isArray(value) && value.every(isTruthy)
}

/** Whether `props` itself holds `key` (never an inherited member such as `constructor`). */
export const hasProperty = (props: Readonly<Record<string, unknown>>, key: string): boolean =>
  Object.hasOwn(props, key) && props[key] !== undefined
