import type { JsonObject } from '../eventlog/port.js'

/**
 * How an aggregate's history reads as PostHog's activity log: its scope, how its events fold
 * into its state, the verb of each event, and the name a reader knows it by.
 */
export interface ActivitySource<State extends JsonObject | null, Event> {
  readonly scope: string
  readonly evolve: (state: State, event: Event) => State
  readonly initialState: State
  /** The verb PostHog's activity log uses for this event ('created', 'updated', 'deleted', …). */
  readonly activityOf: (event: Event) => string
  readonly nameOf: (state: State) => string | null
  /** The short id PostHog shows in an entry's detail, for resources that have one (insights). */
  readonly shortIdOf?: (state: State) => string | null
  /** The fields whose changes an entry lists, where they are not the state's own (default: the state). */
  readonly fieldsOf?: (state: State) => JsonObject | null
  /** Fields that change on every event (timestamps) and say nothing to a reader. */
  readonly ignoredFields: readonly string[]
}
