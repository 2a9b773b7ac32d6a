/**
 * The deepest nesting Hedgelog accepts in any JSON it will store. PostHog's capture refuses bodies
 * nested deeper than 128 levels; Hedgelog draws the line at 64 for every body it stores (ingestion,
 * decide and the management API), so that each accepted value still fits the read stores once
 * wrapped in its document: MongoDB refuses documents nested deeper than 100 levels, and SQLite's
 * JSON functions refuse those deeper than 1,000.
 */
export const MAX_JSON_DEPTH = 64

/**
 * Whether `value` has objects or arrays nested more than `limit` levels deep (a bare object is one
 * level). Stops at the first path past the limit, so its own recursion stays shallow.
 */
export const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  if (value === null || typeof value !== 'object') return false
  if (limit <= 0) return true
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, limit - 1)) return true
    return false
  }
  for (const key in value) if (nestsDeeperThan((value as Record<string, unknown>)[key], limit - 1)) return true
  return false
}

/**
 * Whether JSON text that parses has objects or arrays nested more than `limit` levels deep: the
 * same answer as `nestsDeeperThan` on its parsed value, found in one pass over the text. Strings
 * are skipped by searching for their closing quote, so the pass costs little per character of
 * long values, and nothing per key: for an object of many thousands of keys it is several times
 * faster than walking the parsed value. A text with no more opening brackets than `limit`, in
 * strings or not, cannot nest deeper and is not scanned at all.
 */
export const textNestsDeeperThan = (text: string, limit: number): boolean => {
  if (!holdsOpeningBrackets(text, limit + 1)) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      i = closingQuote(text, i)
      if (i === -1) return false
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > limit) return true
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/** The index of the quote closing the string opened at `open`: the first not escaped by an odd run of backslashes. */
const closingQuote = (text: string, open: number): number => {
  let end = open
  for (;;) {
    end = text.indexOf('"', end + 1)
    if (end === -1) return -1
    let backslashes = 0
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return end
  }
}

/** Whether `text` holds at least `count` opening brackets, `{` and `[` together, found by the engine's own search. */
const holdsOpeningBrackets = (text: string, count: number): boolean => {
  let found = 0
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1; i = text.indexOf(bracket, i + 1)) if (++found >= count) return true
  }
  return false
}
