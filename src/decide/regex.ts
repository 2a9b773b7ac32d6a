// A leading inline-flag group such as `(?i)`, which the server's regex engine accepts and
// JavaScript does not; `i`, `m` and `s` carry over as RegExp flags.
const LEADING_FLAGS = /^\(\?([a-zA-Z]+)\)/
const PORTABLE_FLAGS = /^[ims]+$/

/**
 * Compiles a filter's pattern for an unanchored search, or returns null when it is invalid
 * (the `regex` and `not_regex` operators then both fail). Unicode mode is tried first, then
 * legacy mode for patterns that escape characters Unicode mode rejects (such as `\-`).
 */
export const compilePattern = (pattern: string): RegExp | null => {
  let source = pattern
  let flags = ''
  const inline = LEADING_FLAGS.exec(pattern)
  if (inline) {
    if (!PORTABLE_FLAGS.test(inline[1]!)) return null
    flags = [...new Set(inline[1]!)].join('')
    source = pattern.slice(inline[0].length)
  }
  try {
    return new RegExp(source, `${flags}u`)
  } catch {
    try {
      return new RegExp(source, flags)
    } catch {
      return null
    }
  }
}
