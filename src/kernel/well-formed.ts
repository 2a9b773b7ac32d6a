const BACKSLASH = 0x5c
const LETTER_U = 0x75
const LOWER_CASE = 0x20

/** Whether the backslash at `at` starts an escape: it is not itself escaped by an odd run of backslashes before it. */
const startsEscape = (text: string, at: number): boolean => {
  let before = 0
  while (at - before - 1 >= 0 && text.charCodeAt(at - before - 1) === BACKSLASH) before++
  return before % 2 === 0
}

/** Which surrogate the four hex digits at `at` name, if any. */
const surrogateAt = (text: string, at: number): 'high' | 'low' | null => {
  if ((text.charCodeAt(at) | LOWER_CASE) !== 0x64) return null // 'd'
  const second = text.charCodeAt(at + 1) | LOWER_CASE
  if (second === 0x38 || second === 0x39 || second === 0x61 || second === 0x62) return 'high' // 8, 9, a, b
  if (second >= 0x63 && second <= 0x66) return 'low' // c–f
  return null
}

/**
 * Whether a JSON text (one `JSON.parse` accepted) escapes a lone surrogate: a `\uD800`–`\uDBFF`
 * not followed at once by a `\uDC00`–`\uDFFF`, or one of the latter on its own. That is the only
 * way text decoded from UTF-8 parses into a string with a lone surrogate. Cheap enough to ask of
 * every request: texts without `\u` are passed over by a native search, and pairs (Python's
 * `ensure_ascii` escapes every emoji as one) are recognised without parsing anything.
 */
export const escapesSurrogates = (text: string): boolean => {
  for (let at = text.indexOf('\\u'); at !== -1; at = text.indexOf('\\u', at + 2)) {
    if (!startsEscape(text, at)) continue
    const kind = surrogateAt(text, at + 2)
    if (kind === 'low') return true
    if (kind === null) continue
    const pairedAt = at + 6
    if (text.charCodeAt(pairedAt) !== BACKSLASH || text.charCodeAt(pairedAt + 1) !== LETTER_U || surrogateAt(text, pairedAt + 2) !== 'low') return true
    at = pairedAt
  }
  return false
}

const wellFormedText = (text: string): string => (text.isWellFormed() ? text : text.toWellFormed())

/**
 * A parsed JSON value with every string, object keys included, made well-formed UTF-16: each lone
 * surrogate becomes U+FFFD, as a strict UTF-8 encoder would write it. Containers are copied only
 * where something changed, so a clean value comes back as the same object. Two keys that become
 * equal keep the later one's value, as a JSON parser keeps the later of repeated keys.
 */
export const wellFormedJson = (value: unknown): unknown => {
  if (typeof value === 'string') return wellFormedText(value)
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    let copy: unknown[] | null = null
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const fixed = wellFormedJson(item)
      if (fixed !== item) (copy ??= value.slice())[i] = fixed
    }
    return copy ?? value
  }
  const entries = Object.entries(value)
  let changed = false
  const fixed = entries.map(([key, item]): [string, unknown] => {
    const fixedKey = wellFormedText(key)
    const fixedItem = wellFormedJson(item)
    if (fixedKey !== key || fixedItem !== item) changed = true
    return [fixedKey, fixedItem]
  })
  // fromEntries defines own properties, so a key such as `__proto__` stays a plain key.
  return changed ? Object.fromEntries(fixed) : value
}
