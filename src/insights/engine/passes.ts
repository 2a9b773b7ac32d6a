import type { Needs } from '../properties/compile-filters.js'
import { rowContext, type RowContext, type RowLookups } from '../properties/row-context.js'
import type { EventScan, QueryEnvironment, QueryGroup, QuerySource, ScanWindow } from './data.js'
import { SESSION_REACH_MS, SessionTable } from './sessions.js'

/** The window that holds every one of `windows`. */
export const spanning = (windows: readonly ScanWindow[]): ScanWindow => ({
  from: earliestOf(windows.map((window) => window.from)),
  to: Math.max(...windows.map((window) => window.to)),
})

/** Event names to read: null (all events) as soon as one series reads every event. */
export const namesOf = (events: readonly (string | null)[]): string[] | null =>
  events.includes(null) ? null : [...new Set(events as string[])]

/** The earliest of lower bounds, where null means "from the first event". */
export const earliestOf = (bounds: readonly (number | null)[]): number | null =>
  bounds.includes(null) ? null : Math.min(...(bounds as number[]))

/**
 * Loads what rows will look up: the groups of the types filters read, and, when session
 * properties are read, the sessions of the scan (a first pass over every event within a day
 * of it, since a session lasts a day at the most).
 */
export const loadLookups = async (source: QuerySource, environment: QueryEnvironment, needs: Needs, scan: EventScan): Promise<RowLookups> => {
  const groups = new Map<number, ReadonlyMap<string, QueryGroup>>()
  for (const index of needs.groupTypes) groups.set(index, await source.groups(index))
  let sessions = null
  if (needs.sessions) {
    const table = new SessionTable()
    const wide: EventScan = { from: scan.from === null ? null : scan.from - SESSION_REACH_MS, to: scan.to + SESSION_REACH_MS, events: null }
    for await (const page of source.scan(wide)) for (const event of page) table.add(event)
    sessions = table.properties()
  }
  return { groupTypes: environment.groupTypes, groups, sessions }
}

/** Streams a scan's rows to `visit`, each with its lookups. */
export const visitRows = async (source: QuerySource, scan: EventScan, lookups: RowLookups, visit: (row: RowContext) => void): Promise<void> => {
  for await (const page of source.scan(scan)) for (const event of page) visit(rowContext(event, lookups))
}
