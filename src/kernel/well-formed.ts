const LOWER_CASE = 0x20

/**
 * Whether a well-formed JSON text holds a `\uD800`–`\uDFFF` escape, the only way it can parse
 * into a string with a lone surrogate. Cheap enough to ask of every request: texts without any
 * `\u` are passed over by a native search. False alarms only cost a walk that changes nothing:
 * pairs sent as escapes (Python's `ensure_ascii`), or an escaped backslash followed by `ud800`
 * (which cannot be told from a real escape without counting the backslashes before it).
 */
export const escapesSurrogates = (text: string): boolean => {
  for (let at = text.indexOf('\\u'); at !== -1; at = text.indexOf('\\u', at + 2)) {
    const first = text.charCodeAt(at + 2) | LOWER_CASE
    const second = text.charCodeAt(at + 3) | LOWER_CASE
    if (first === 0x64 && ((second >= 0x38 && second <= 0x39) || (second >= 0x61 && second <= 0x66))) return true
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
