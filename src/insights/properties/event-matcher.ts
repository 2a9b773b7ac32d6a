import type { RowTest } from './compile-filters.js'
import type { RowContext } from './row-context.js'

/** An event name (null: every event) and filters: a funnel step or exclusion, a retention entity. */
export interface EventMatcher {
  readonly event: string | null
  readonly test: RowTest
}

export const matches = (matcher: EventMatcher, row: RowContext): boolean =>
  (matcher.event === null || row.event.event === matcher.event) && matcher.test(row)
