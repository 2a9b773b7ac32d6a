import type { EventScan, QueryEvent, QueryGroup, QuerySource } from './data.js'

/** A QuerySource over events held in memory (tests, small imports): filters and orders as a store would. */
export const memorySource = (
  events: readonly QueryEvent[], groups: ReadonlyMap<number, ReadonlyMap<string, QueryGroup>> = new Map(),
): QuerySource => {
  const ordered = [...events].sort((a, b) => a.timestamp - b.timestamp)
  return {
    scan: (scan: EventScan) => {
      const names = scan.events === null ? null : new Set(scan.events)
      return ordered.filter((e) => (scan.from === null || e.timestamp >= scan.from) && e.timestamp <= scan.to && (names === null || names.has(e.event)))
    },
    earliestTimestamp: async () => ordered[0]?.timestamp ?? null,
    groups: async (index) => groups.get(index) ?? new Map(),
  }
}
