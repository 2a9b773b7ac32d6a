import type { QueryEvent } from '../engine/data.js'

/**
 * A saved query answered continuously, from the events of its environment as they come. Every
 * event of the environment is added once, in any order of time (late and imported events
 * included), each with its person as it is when added; a merge of two persons is told when it
 * happens. `answer(now)` then equals what the query engine answers at `now` over every event
 * added, each with its person as the merges told so far make it; null when only the engine can
 * answer at that moment (a range whose bounds cut what the live state keeps whole).
 */
export interface LiveQuery<Response> {
  add(event: QueryEvent): void
  /** Person `from` was merged into person `into`: every event of `from` is `into`'s now. */
  merge(from: string, into: string): void
  answer(now: number): Response | null
  /** What it keeps, in the entries its kind keeps (cells and the actors in them, or persons' kept events): its share of memory. */
  size(): number
}
