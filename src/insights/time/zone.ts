/**
 * An IANA time zone read through `Intl`. Times are handled as two kinds of number: an instant
 * (epoch milliseconds) and a *local* time (the zone's wall clock written as if it were UTC
 * milliseconds), so calendar arithmetic can use the UTC methods of `Date` and stay exact.
 */
export interface Zone {
  readonly name: string
  /** The wall clock at `instant`, as a local time. */
  toLocal(instant: number): number
  /**
   * The instant a wall-clock time stands for. An ambiguous time (clocks turned back) is its first
   * occurrence and a skipped one (clocks turned forward) takes the offset in force before the
   * change, as Python's `zoneinfo` does with `fold=0`.
   */
  toInstant(local: number): number
}

const DAY = 86_400_000
const SLOT = 900_000 // offsets change on quarter hours at the finest
const MAX_CACHED = 50_000

const formatterFor = (name: string): Intl.DateTimeFormat =>
  new Intl.DateTimeFormat('en-US', {
    timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
    hour: 'numeric', minute: 'numeric', second: 'numeric', era: 'short',
  })

const offsetReader = (formatter: Intl.DateTimeFormat) => (instant: number): number => {
  const fields: Record<string, number> = {}
  let bc = false
  for (const part of formatter.formatToParts(instant)) {
    if (part.type === 'era') bc = part.value.startsWith('B')
    else if (part.type !== 'literal') fields[part.type] = Number(part.value)
  }
  const date = new Date(0)
  date.setUTCFullYear(bc ? 1 - fields['year']! : fields['year']!, fields['month']! - 1, fields['day']!)
  date.setUTCHours(fields['hour']!, fields['minute']!, fields['second']!, 0)
  return date.getTime() - (instant - (((instant % 1000) + 1000) % 1000))
}

/** Whether `name` is a time zone this runtime knows. */
export const isKnownZone = (name: string): boolean => {
  try {
    formatterFor(name)
    return true
  } catch {
    return false
  }
}

/** Opens a zone; throws RangeError for a name the runtime does not know. */
export const openZone = (name: string): Zone => {
  const formatter = formatterFor(name)
  // UTC (PostHog's default) never shifts: no offset to read for each quarter hour a query spans.
  if (formatter.resolvedOptions().timeZone === 'UTC') return { name, toLocal: (instant) => instant, toInstant: (local) => local }
  const read = offsetReader(formatter)
  const cache = new Map<number, number>()
  const offset = (instant: number): number => {
    const slot = Math.floor(instant / SLOT)
    let known = cache.get(slot)
    if (known === undefined) {
      if (cache.size >= MAX_CACHED) cache.clear()
      known = read(slot * SLOT)
      cache.set(slot, known)
    }
    return known
  }
  return {
    name,
    toLocal: (instant) => instant + offset(instant),
    toInstant: (local) => {
      const before = offset(local - DAY)
      const after = offset(local + DAY)
      const first = local - before
      const second = local - after
      const fits = (instant: number) => instant + offset(instant) === local
      if (fits(first) && fits(second)) return Math.min(first, second)
      if (fits(first)) return first
      if (fits(second)) return second
      return first
    },
  }
}
