import type { JsonObject } from '../../eventlog/port.js'
import type { AnyPropertyFilter } from '../schema/property-filters.js'

/**
 * One event as the engine reads it. The read-store adapter resolves persons: `personId` is the
 * person's uuid as it is now (merges applied, PostHog's person-id override) and
 * `personProperties` are the properties the adapter chose for the query's persons-on-events
 * mode (as they were at the event by default; current ones for
 * `person_id_override_properties_joined`). The engine only reads the fields.
 */
export interface QueryEvent {
  readonly uuid: string
  readonly event: string
  /** Epoch milliseconds, UTC. */
  readonly timestamp: number
  readonly distinctId: string
  readonly personId: string
  /**
   * When the person was created (epoch ms); lifecycle's "new" is the period holding it. The
   * event's own timestamp for a distinct id without a person, and from a source told that the
   * query does not read it.
   */
  readonly personCreatedAt: number
  /** Event properties ($session_id, $groups, $browser…). */
  readonly properties: JsonObject
  readonly personProperties: JsonObject
  /** PostHog's `elements_chain` text of autocapture events ('' when none). */
  readonly elementsChain?: string
  /** When the event reached the store (epoch ms); the events query shows the timestamp when absent. */
  readonly createdAt?: number
}

/** What the engine asks the store to read: rows of one environment, in timestamp order. */
/** The instants a scan reads between, both inclusive; a null `from` starts at the first event. */
export type ScanWindow = Pick<EventScan, 'from' | 'to'>

export interface EventScan {
  /** Inclusive lower bound (epoch ms), or null for the environment's first event. */
  readonly from: number | null
  /** Inclusive upper bound (epoch ms). */
  readonly to: number
  /** Event names to read, or null for every event. */
  readonly events: readonly string[] | null
  /**
   * Whether rows need their events' properties and elements chain (default true). Without them a
   * source may give `{}` and '', and read only names, times and persons.
   */
  readonly properties?: boolean
}

/** A group as the engine reads it. */
export interface QueryGroup {
  readonly properties: JsonObject
  /** Epoch milliseconds. */
  readonly createdAt: number
}

/** A person as actors and events queries show it: its current state, not the state at an event. */
export interface QueryPerson {
  /** The person's uuid, as `QueryEvent.personId` carries it. */
  readonly id: string
  /** Its distinct ids, in the order PostHog lists them. */
  readonly distinctIds: readonly string[]
  readonly properties: JsonObject
  /** Epoch milliseconds. */
  readonly createdAt: number
  readonly isIdentified: boolean
}

/**
 * The store behind a query, for one environment. The engine calls `scan` once or twice per
 * period (a second pass only when session properties are needed) and never holds more than
 * its aggregates while rows stream.
 */
export interface QuerySource {
  /**
   * Events within the scan, ordered by timestamp, in pages: a page at a time costs the engine
   * one step of iteration instead of one per event.
   */
  scan(scan: EventScan): AsyncIterable<readonly QueryEvent[]> | Iterable<readonly QueryEvent[]>
  /** The environment's earliest event timestamp (for `date_from: "all"`), null when it has none. */
  earliestTimestamp(): Promise<number | null>
  /** Every group of one type, by key. */
  groups(groupTypeIndex: number): Promise<ReadonlyMap<string, QueryGroup>>
  /**
   * The persons with these uuids, by uuid, as they are now (merges applied). A uuid the store
   * does not know (a deleted person) is left out of the map. Called with the persons of one page
   * of events or actors, or with every actor of one data point when an actors query filters,
   * searches or sorts by person.
   */
  persons(ids: readonly string[]): Promise<ReadonlyMap<string, QueryPerson>>
}

/** One group type of the environment (PostHog's group type mapping). */
export interface GroupTypeEntry {
  readonly group_type: string
  readonly group_type_index: number
}

/** The environment's settings a query depends on. */
export interface QueryEnvironment {
  /** The environment's id, which events queries show as `team_id` (0 when absent). */
  readonly teamId?: number
  /** IANA name, e.g. "UTC", "America/New_York". */
  readonly timezone: string
  /** 0 Sunday (PostHog's default) or 1 Monday. */
  readonly weekStartDay: 0 | 1
  /** Filters `filterTestAccounts: true` adds (ANDed). */
  readonly testAccountFilters: readonly AnyPropertyFilter[]
  readonly groupTypes: readonly GroupTypeEntry[]
}

/** Everything a run needs besides the store: the environment and the time it is "now". */
export interface QueryInput {
  readonly environment: QueryEnvironment
  /** Epoch milliseconds. */
  readonly now: number
}
