import { SLICE_MS, yieldToLoop } from '../../kernel/slices.js'
import type { EventScan, QueryEvent, QueryGroup, QueryPerson, QuerySource } from './data.js'

/** Events in one page of a scan, at most. */
const PAGE = 2000

/**
 * The events of `ordered` within a scan, a page at a time; between pages, once a slice of work
 * has run for `SLICE_MS`, the event loop is handed back, so that a scan of a large history in
 * memory (an insight as of a past moment) never holds it for long.
 */
async function* pagesOf(ordered: readonly QueryEvent[], scan: EventScan): AsyncGenerator<readonly QueryEvent[]> {
  const names = scan.events === null ? null : new Set(scan.events)
  let page: QueryEvent[] = []
  let sliceStart = performance.now()
  for (const e of ordered) {
    if ((scan.from === null || e.timestamp >= scan.from) && e.timestamp <= scan.to && (names === null || names.has(e.event))) page.push(e)
    if (page.length < PAGE) continue
    yield page
    page = []
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop()
      sliceStart = performance.now()
    }
  }
  if (page.length > 0) yield page
}

/**
 * The persons events imply: each person's distinct ids in order of first use, the person
 * properties of its latest event, and its creation time. Tests that need more pass persons.
 */
const personsOfEvents = (ordered: readonly QueryEvent[]): Map<string, QueryPerson> => {
  const out = new Map<string, QueryPerson>()
  for (const event of ordered) {
    const known = out.get(event.personId)
    const distinctIds = known === undefined ? [event.distinctId] : known.distinctIds.includes(event.distinctId) ? known.distinctIds : [...known.distinctIds, event.distinctId]
    out.set(event.personId, { id: event.personId, distinctIds, properties: event.personProperties, createdAt: event.personCreatedAt, isIdentified: false })
  }
  return out
}

/** A QuerySource over events held in memory (tests, small imports): filters and orders as a store would. */
export const memorySource = (
  events: readonly QueryEvent[],
  groups: ReadonlyMap<number, ReadonlyMap<string, QueryGroup>> = new Map(),
  persons: ReadonlyMap<string, QueryPerson> | null = null,
): QuerySource => {
  const ordered = [...events].sort((a, b) => a.timestamp - b.timestamp)
  const known = persons ?? personsOfEvents(ordered)
  return {
    scan: (scan: EventScan) => pagesOf(ordered, scan),
    earliestTimestamp: async () => ordered[0]?.timestamp ?? null,
    groups: async (index) => groups.get(index) ?? new Map(),
    persons: async (ids) => {
      const out = new Map<string, QueryPerson>()
      for (const id of ids) {
        const person = known.get(id)
        if (person) out.set(id, person)
      }
      return out
    },
  }
}
