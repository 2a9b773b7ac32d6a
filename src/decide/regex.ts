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
    return RE2JS.compile(pattern)
  } catch {
    return null
  }
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
