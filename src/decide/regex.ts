import { RE2JS } from 're2js'

/** A compiled filter pattern: `test` searches its input unanchored, in time linear in the input. */
export interface Pattern {
  test(input: string): boolean
}

/**
 * Compiles a filter's pattern with RE2's syntax and linear-time matching, as PostHog's flags
 * service does with Rust's `regex` crate (same syntax family: inline flags such as `(?i)`, no
 * backreferences or look-around). Returns null when the engine refuses the pattern; the `regex`
 * and `not_regex` operators then both fail, and the flag API refuses such a pattern up front.
 * No pattern and no input can make matching backtrack, so nothing a request carries can hold
 * the event loop here.
 */
export const compilePattern = (pattern: string): Pattern | null => {
  try {
    const compiled = RE2JS.compile(pattern)
    return literalPattern(pattern) ?? compiled
  } catch {
    return null
  }
}

/** Plain characters (a few punctuation marks escaped), optionally anchored at the start and the end. */
const LITERAL = /^(\^?)((?:[A-Za-z0-9_@ :,=&%#!~'"<>/-]|\\[.\-/])*)(\$?)$/

/**
 * A pattern of plain characters is matched by a string search, which finds what the engine would
 * find: `^` anchors at the start of the input and `$` at its very end (not before a final newline).
 */
const literalPattern = (pattern: string): Pattern | null => {
  const parts = LITERAL.exec(pattern)
  if (!parts) return null
  const text = parts[2]!.replace(/\\(.)/g, '$1')
  const atStart = parts[1] === '^'
  const atEnd = parts[3] === '$'
  if (atStart && atEnd) return { test: (input) => input === text }
  if (atStart) return { test: (input) => input.startsWith(text) }
  if (atEnd) return { test: (input) => input.endsWith(text) }
  return { test: (input) => input.includes(text) }
}

/** Why the engine refuses `pattern`, or null when it compiles. */
export const patternProblem = (pattern: string): string | null => {
  try {
    RE2JS.compile(pattern)
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
