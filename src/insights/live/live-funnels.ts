import type { QueryEnvironment, QueryEvent } from '../engine/data.js'
import { funnelValueKey, type FunnelValue } from '../funnels/funnel-breakdown.js'
import { addConversionTimes, countSubject, newTally, type Tally } from '../funnels/funnel-results.js'
import { actorSubjects, funnelRow, type FunnelPlan, type ScannedEvent, type Subject } from '../funnels/funnel-subjects.js'
import { conversionSample, entranceCounts, stepsByEntrance, type TrendsGroup } from '../funnels/funnel-views.js'
import { funnelRun, funnelsResponse, type FunnelCounts, type FunnelRun, type FunnelsResponse } from '../funnels/run-funnels.js'
import { rowContext, type RowLookups } from '../properties/row-context.js'
import type { FunnelsQuery } from '../schema/insight-queries.js'
import { alignLocal, type ResolvedRange } from '../time/date-range.js'
import { firstNotBefore, mergeSorted } from './sorted.js'
import type { LiveQuery } from './live-query.js'
import { liveFunnelsRefusal } from './live-support.js'

/** A row a funnel keeps of a person's event, with its uuid: a person's rows are kept in the order a scan meets them. */
interface Row extends ScannedEvent {
  readonly uuid: string
}

/** One person: the rows the funnel reads of its events, and what it counts in the answer last given. */
interface Person {
  rows: Row[]
  /** The rows counted (`rows[lo]` to before `rows[hi]`): those within the range of the last answer. */
  lo: number
  hi: number
  /** The person's subjects as counted in the aggregate, and its first row counted when it has any (where a scan first meets it). */
  subjects: readonly Subject[]
  first: Row | null
  /** Conversion trends: per subject, the most steps reached per entrance bucket (by its local start). */
  entrances: readonly Map<number, number>[]
}

/** What the subjects of one breakdown value (the only one without a breakdown) add up to. */
interface Aggregate {
  readonly value: FunnelValue | null
  subjects: number
  /** Per step, the subjects that reached it. */
  readonly counts: number[]
  /** Conversion trends: per entrance bucket (by local start), the subjects that entered and those that converted. */
  readonly entered: Map<number, number>
  readonly converted: Map<number, number>
}

const before = (a: Row, t: number, uuid: string): boolean => a.t < t || (a.t === t && a.uuid < uuid)

/** The first index whose row is not before (t, uuid). */
const searchRows = (rows: readonly Row[], t: number, uuid: string): number => {
  let low = 0
  let high = rows.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (before(rows[mid]!, t, uuid)) low = mid + 1
    else high = mid
  }
  return low
}

/** How many rows from the end a new row's place is looked for one by one, before a search of them all. */
const NEAR_END = 16

/**
 * Where a row goes among sorted rows: looked for from the end first, since events mostly come in
 * the order of their times and go at the end or among the last few (a request's events share one
 * instant); a row that goes further back is placed by a search.
 */
const placeOfRow = (rows: readonly Row[], t: number, uuid: string): number => {
  const floor = Math.max(0, rows.length - NEAR_END)
  let at = rows.length
  while (at > floor && !before(rows[at - 1]!, t, uuid)) at--
  return at > floor || at === 0 || before(rows[at - 1]!, t, uuid) ? at : searchRows(rows, t, uuid)
}

/** The first index whose row's time is at least `t` (after `t` with `after`). */
const searchTime = (rows: readonly Row[], t: number, after: boolean): number =>
  firstNotBefore(rows, (row) => row.t < t || (after && row.t === t))

const mergeRows = (a: readonly Row[], b: readonly Row[]): Row[] => mergeSorted(a, b, (fromB, fromA) => before(fromB, fromA.t, fromA.uuid))

const bump = (map: Map<number, number>, key: number, by: number): void => {
  const next = (map.get(key) ?? 0) + by
  if (next === 0) map.delete(key)
  else map.set(key, next)
}

/**
 * A FunnelsQuery answered continuously. Each person keeps the rows the funnel reads of its
 * events (step and exclusion events, every event for strict funnels; each with the steps and
 * exclusions it matches and its breakdown value, fixed when added), in the order a scan meets
 * them, and the subjects they made at the last answer; the aggregate holds, per breakdown value,
 * how many subjects reached each step (and, for conversion trends, entered and converted per
 * period). An event or a merge marks its person for recomputation; an answer recomputes those
 * persons with the engine's own matching (and, when the range's bounds moved, the persons whose
 * rows within the range changed), takes their old subjects out of the aggregate and puts the
 * new ones in, then shapes the result as the engine does. Conversion times (for means, medians
 * and time to convert) are gathered from the persons' subjects at each answer, in the engine's
 * order. `answer(now)` equals `runFunnels` at `now` over every event added, each with its person
 * as it is after the merges told; it is never null, as the rows are kept whole.
 */
export class LiveFunnels implements LiveQuery<FunnelsResponse> {
  private readonly plan: FunnelPlan
  /** The steps a conversion goes between (conversion trends and time to convert). */
  private readonly from: number
  private readonly to: number
  private readonly lookups: RowLookups
  private readonly persons = new Map<string, Person>()
  private readonly dirty = new Set<string>()
  private readonly aggregates = new Map<string, Aggregate>()
  private earliest: number | null = null
  /** The range's bounds and buckets at the last answer, and what was counted then while nothing changed since. */
  private counted: { readonly key: string; readonly counts: FunnelCounts } | null = null
  private bounds: { readonly from: number; readonly to: number } | null = null
  /** The persons with subjects in scan order, while no person's first counted row changed. */
  private order: Person[] | null = null

  /** Throws `QueryRefused` for a query the engine refuses, and an error for one `liveFunnelsRefusal` refuses. */
  constructor(private readonly query: FunnelsQuery, private readonly environment: QueryEnvironment, now: number) {
    const run = funnelRun(query, { environment, now }, null)
    const refusal = liveFunnelsRefusal(query, run.plan.needs, environment)
    if (refusal !== null) throw new Error(`this funnel query cannot be answered live: ${refusal}`)
    this.plan = run.plan
    this.from = run.from
    this.to = run.to
    this.lookups = { groupTypes: environment.groupTypes, groups: new Map(), sessions: null }
  }

  /** Keeps the row of one event the funnel reads; its `personId` is its person's as the event is added. */
  add(event: QueryEvent): void {
    if (this.earliest === null || event.timestamp < this.earliest) this.earliest = event.timestamp
    const kept = funnelRow(this.plan, rowContext(event, this.lookups))
    if (kept === null) return
    // Written out rather than spread: a spread copy takes about twice the memory, and persons keep millions of rows.
    const { t, steps, exclusions, value } = kept.event
    const row: Row = { t, steps, exclusions, value, uuid: event.uuid }
    const person = this.personOf(kept.actor)
    const at = placeOfRow(person.rows, row.t, row.uuid)
    if (at === person.rows.length) person.rows.push(row)
    else person.rows.splice(at, 0, row)
    this.dirty.add(kept.actor)
    this.counted = null
  }

  /** Person `from` was merged into person `into`: its rows are `into`'s now. */
  merge(from: string, into: string): void {
    if (from === into) return
    const merged = this.persons.get(from)
    if (merged === undefined) return
    this.count(merged, -1)
    if (merged.subjects.length > 0) this.order = null
    this.persons.delete(from)
    this.dirty.delete(from)
    const person = this.personOf(into)
    person.rows = mergeRows(person.rows, merged.rows)
    this.dirty.add(into)
    this.counted = null
  }

  /** The query's answer at `now`. */
  size(): number {
    let size = 0
    for (const person of this.persons.values()) size += 1 + person.rows.length
    return size
  }

  answer(now: number): FunnelsResponse {
    const earliestEvent = this.query.dateRange?.date_from === 'all' ? this.earliest : null
    const run = funnelRun(this.query, { environment: this.environment, now }, earliestEvent)
    const range = run.periods.current
    if (this.bounds === null || this.bounds.from !== range.filterFrom || this.bounds.to !== range.filterTo) {
      // The range moved: only persons whose rows within it changed count differently.
      for (const [id, person] of this.persons) {
        const [lo, hi] = this.sliceOf(person, range)
        if (lo !== person.lo || hi !== person.hi) this.dirty.add(id)
      }
      this.bounds = { from: range.filterFrom, to: range.filterTo }
    }
    for (const id of this.dirty) this.recount(id, this.persons.get(id)!, run)
    this.dirty.clear()
    const key = `${range.filterFrom} ${range.filterTo} ${range.buckets[0]} ${range.buckets.length}`
    if (this.counted === null || this.counted.key !== key) this.counted = { key, counts: this.countsOf(run) }
    return funnelsResponse(run, this.counted.counts, this.environment.timezone)
  }

  private personOf(id: string): Person {
    let person = this.persons.get(id)
    if (person === undefined) {
      person = { rows: [], lo: 0, hi: 0, subjects: [], first: null, entrances: [] }
      this.persons.set(id, person)
    }
    return person
  }

  private sliceOf(person: Person, range: ResolvedRange): [number, number] {
    return [searchTime(person.rows, range.filterFrom, false), searchTime(person.rows, range.filterTo, true)]
  }

  /** Takes a person's subjects out of the aggregate, matches its rows within the range again, and puts the new subjects in. */
  private recount(id: string, person: Person, run: FunnelRun): void {
    this.count(person, -1)
    const range = run.periods.current
    const [lo, hi] = this.sliceOf(person, range)
    person.lo = lo
    person.hi = hi
    person.subjects = lo < hi ? actorSubjects(this.plan, id, person.rows.slice(lo, hi)) : []
    const first = person.subjects.length > 0 ? person.rows[lo]! : null
    if (first !== person.first) this.order = null
    person.first = first
    if (run.viz === 'trends') {
      const { zone, weekStartDay } = run.periods.context
      const periodOf = (instant: number) => alignLocal(zone.toLocal(instant), range.interval, weekStartDay)
      person.entrances = person.subjects.map((subject) => stepsByEntrance(subject, periodOf))
    } else {
      person.entrances = []
    }
    this.count(person, 1)
  }

  /** Adds a person's subjects to the aggregate (`sign` 1) or takes them out (-1). */
  private count(person: Person, sign: 1 | -1): void {
    person.subjects.forEach((subject, index) => {
      const key = subject.value === null ? '' : funnelValueKey(subject.value)
      let aggregate = this.aggregates.get(key)
      if (aggregate === undefined) {
        aggregate = { value: subject.value, subjects: 0, counts: new Array<number>(this.plan.steps.length).fill(0), entered: new Map(), converted: new Map() }
        this.aggregates.set(key, aggregate)
      }
      aggregate.subjects += sign
      countSubject(aggregate.counts, subject, sign)
      for (const [start, steps] of person.entrances[index] ?? []) {
        const counted = entranceCounts(steps, this.from, this.to)
        if (counted.entered) bump(aggregate.entered, start, sign)
        if (counted.converted) bump(aggregate.converted, start, sign)
      }
      if (aggregate.subjects === 0) this.aggregates.delete(key)
    })
  }

  /** The persons with subjects, in the order the engine's scan first meets them (their first row within the range). */
  private inScanOrder(): Person[] {
    if (this.order !== null) return this.order
    const counted = [...this.persons.values()].filter((person) => person.subjects.length > 0)
    this.order = counted.sort((a, b) => {
      const x = a.first!
      const y = b.first!
      return x.t - y.t || (x.uuid < y.uuid ? -1 : x.uuid > y.uuid ? 1 : 0)
    })
    return this.order
  }

  /** What the engine's `countSubjects` gives at this answer, from the aggregate and, for times, the persons' subjects. */
  private countsOf(run: FunnelRun): FunnelCounts {
    switch (run.viz) {
      case 'steps': {
        const tallies = new Map<string, Tally>()
        for (const [key, aggregate] of this.aggregates) {
          const tally = newTally(aggregate.value, this.plan.steps.length)
          aggregate.counts.forEach((count, step) => (tally.counts[step] = count))
          tallies.set(key, tally)
        }
        for (const person of this.inScanOrder()) {
          for (const subject of person.subjects) addConversionTimes(tallies.get(subject.value === null ? '' : funnelValueKey(subject.value))!.times, subject)
        }
        return { viz: 'steps', tallies: [...tallies.values()] }
      }
      case 'time_to_convert': {
        const samples: number[] = []
        for (const person of this.inScanOrder()) {
          for (const subject of person.subjects) {
            const sample = conversionSample(subject, this.from, this.to)
            if (sample !== null) samples.push(sample)
          }
        }
        return { viz: 'time_to_convert', samples }
      }
      case 'trends': {
        const { buckets } = run.periods.current
        const groups: TrendsGroup[] = [...this.aggregates].map(([key, aggregate]) => ({
          key, value: aggregate.value,
          entered: buckets.map((start) => aggregate.entered.get(start) ?? 0),
          converted: buckets.map((start) => aggregate.converted.get(start) ?? 0),
        }))
        return { viz: 'trends', groups }
      }
    }
  }
}
