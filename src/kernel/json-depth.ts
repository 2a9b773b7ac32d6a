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
