import type { QueryEnvironment, QueryEvent } from '../engine/data.js'
import {
  countLifecycleEvent, emptyLifecycleCounts, lifecycleBuckets, lifecyclePart, lifecycleResponse, lifecycleRun, tallyLifecycle,
  type LifecycleActor, type LifecycleCounts, type LifecycleResponse, type LifecycleRun,
} from '../lifecycle/run-lifecycle.js'
import type { LifecycleStatus } from '../lifecycle/lifecycle-status.js'
import { rowContext, type RowLookups } from '../properties/row-context.js'
import type { LifecycleQuery } from '../schema/insight-queries.js'
import type { SeriesPlan } from '../trends/series-plan.js'
import { firstNotBefore, mergeSorted } from './sorted.js'
import type { LiveQuery } from './live-query.js'
import { liveLifecycleRefusal } from './live-support.js'

/** One event of the query's series, as a person's lifecycle reads it. */
interface Row {
  readonly timestamp: number
  readonly uuid: string
  /** The `personCreatedAt` the event carried when added. */
  readonly createdAt: number
}

interface PersonState {
  /** The person's matching events, by timestamp and then uuid (the order the engine reads them in). */
  rows: Row[]
  /** The person's part in the counts: its statuses in the range's buckets, as last counted. */
  part: [bucket: number, status: LifecycleStatus][]
}

const before = (a: Row, b: Row): boolean => a.timestamp < b.timestamp || (a.timestamp === b.timestamp && a.uuid < b.uuid)

/** The index of the first row not before `row` (where `row` goes). */
const placeOf = (rows: readonly Row[], row: Row): number => {
  let lo = 0
  let hi = rows.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(rows[mid]!, row)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The index of the first row at or after `instant`. */
const firstAtOrAfter = (rows: readonly Row[], instant: number): number => firstNotBefore(rows, (row) => row.timestamp < instant)

const mergeRows = (a: readonly Row[], b: readonly Row[]): Row[] => mergeSorted(a, b, before)

/**
 * A LifecycleQuery answered continuously. Each person keeps the events of the query's series
 * (their instants and the creation time they carried) and their part in the counts: their
 * statuses in the range's buckets. An event or a merge marks its persons; an answer counts again
 * only the marked persons (taking their old part away, adding the new), unless the range moved
 * (a new day, a new earliest event for `all`): then every person is counted again, once. Each
 * person is classified by the engine's own rules (`countLifecycleEvent`, `lifecyclePart`), so
 * `answer(now)` equals `runLifecycle` at `now` over every event added, each with its person as
 * the merges told make it. The answer is never null: every event is kept whole.
 *
 * A person's creation ("new") is what its events carry, as the store gives it: every event of a
 * person carries the person's creation time, and a merge keeps the earlier of the two persons'
 * (as the persons projection merges them). So the engine reads, for each person, the creation
 * carried by its first event of the range's window, the same on each of its events; for a person
 * that took part in a merge, the earliest creation carried by any event of either person, matched
 * by the query or not. An actor without a person (personless events) carries each event's own
 * instant, and is classified from its first event of the window, as the engine does.
 */
export class LiveLifecycle implements LiveQuery<LifecycleResponse> {
  private readonly plan: SeriesPlan
  private readonly lookups: RowLookups
  private readonly persons = new Map<string, PersonState>()
  /** Each person's earliest creation carried by its events (of any name), merged persons' included. */
  private readonly created = new Map<string, number>()
  /** Persons that received another in a merge: their creation is `created`'s, not their first event's. */
  private readonly merged = new Set<string>()
  private readonly dirty = new Set<string>()
  private counts: LifecycleCounts | null = null
  /** The range the counts are for (its window and buckets). */
  private countedFor: string | null = null
  private earliest: number | null = null

  /** Throws `QueryRefused` for a query the engine refuses, and an error for one `liveLifecycleRefusal` refuses. */
  constructor(private readonly query: LifecycleQuery, private readonly environment: QueryEnvironment, now: number) {
    const run = lifecycleRun(query, { environment, now }, null)
    const refusal = liveLifecycleRefusal(query, run.needs, environment)
    if (refusal !== null) throw new Error(`this lifecycle query cannot be answered live: ${refusal}`)
    this.plan = run.plan
    this.lookups = { groupTypes: environment.groupTypes, groups: new Map(), sessions: null }
  }

  /** Keeps one event if the query's series matches it; its `personId` and `personCreatedAt` are its person's as it is added. */
  add(event: QueryEvent): void {
    if (this.earliest === null || event.timestamp < this.earliest) this.earliest = event.timestamp
    const known = this.created.get(event.personId)
    if (known === undefined || event.personCreatedAt < known) {
      this.created.set(event.personId, event.personCreatedAt)
      if (this.merged.has(event.personId)) this.dirty.add(event.personId)
    }
    const { plan } = this
    if (plan.event !== null && plan.event !== event.event) return
    if (!plan.test(rowContext(event, this.lookups))) return
    let state = this.persons.get(event.personId)
    if (state === undefined) this.persons.set(event.personId, (state = { rows: [], part: [] }))
    const row: Row = { timestamp: event.timestamp, uuid: event.uuid, createdAt: event.personCreatedAt }
    const at = placeOf(state.rows, row)
    if (at === state.rows.length) state.rows.push(row)
    else state.rows.splice(at, 0, row)
    this.dirty.add(event.personId)
  }

  /** Person `from` was merged into person `into`: `from`'s events are `into`'s, created at the earlier of the two. */
  merge(from: string, into: string): void {
    if (from === into) return
    const createdFrom = this.created.get(from)
    const createdInto = this.created.get(into)
    if (createdFrom !== undefined && (createdInto === undefined || createdFrom < createdInto)) this.created.set(into, createdFrom)
    this.created.delete(from)
    this.merged.delete(from)
    this.merged.add(into)
    const moved = this.persons.get(from)
    if (moved !== undefined) {
      const kept = this.persons.get(into)
      if (kept === undefined) this.persons.set(into, { rows: moved.rows, part: [] })
      else kept.rows = mergeRows(kept.rows, moved.rows)
      moved.rows = []
      this.dirty.add(from)
    }
    if (this.persons.has(into)) this.dirty.add(into)
  }

  /** The query's answer at `now`. */
  size(): number {
    let size = this.created.size
    for (const person of this.persons.values()) size += 1 + person.rows.length
    return size
  }

  answer(now: number): LifecycleResponse {
    const earliestEvent = this.query.dateRange?.date_from === 'all' ? this.earliest : null
    const run = lifecycleRun(this.query, { environment: this.environment, now }, earliestEvent)
    const { buckets } = run.range
    const countedFor = `${run.scan.from}:${run.scan.to}:${buckets[0]}:${buckets.length}`
    const index = lifecycleBuckets(run)
    if (this.counts === null || countedFor !== this.countedFor) {
      const counts = emptyLifecycleCounts(run)
      for (const [id, state] of this.persons) this.recount(run, index, counts, id, state, false)
      this.counts = counts
      this.countedFor = countedFor
    } else {
      for (const id of this.dirty) {
        const state = this.persons.get(id)
        if (state !== undefined) this.recount(run, index, this.counts, id, state, true)
      }
    }
    this.dirty.clear()
    const data = emptyLifecycleCounts(run)
    for (const status of Object.keys(data) as LifecycleStatus[]) data[status] = [...this.counts[status]]
    return lifecycleResponse(run, data, this.environment.timezone)
  }

  /** Counts one person's part again; `counted` when its old part is in the counts, to be taken away. */
  private recount(run: LifecycleRun, index: ReadonlyMap<number, number>, counts: LifecycleCounts, id: string, state: PersonState, counted: boolean): void {
    if (counted) tallyLifecycle(counts, state.part, -1)
    if (state.rows.length === 0) {
      this.persons.delete(id)
      return
    }
    state.part = this.partOf(run, index, id, state.rows)
    tallyLifecycle(counts, state.part, 1)
  }

  /** A person's statuses in the range's buckets, from its events in the run's window read as the engine reads them. */
  private partOf(run: LifecycleRun, index: ReadonlyMap<number, number>, id: string, rows: readonly Row[]): [number, LifecycleStatus][] {
    const actors = new Map<string, LifecycleActor>()
    const created = this.merged.has(id) ? this.created.get(id) : undefined
    for (let i = firstAtOrAfter(rows, run.scan.from); i < rows.length && rows[i]!.timestamp <= run.scan.to; i++) {
      const row = rows[i]!
      countLifecycleEvent(run, actors, id, row.timestamp, () => created ?? row.createdAt)
    }
    const actor = actors.get(id)
    return actor === undefined ? [] : lifecyclePart(run, index, actor)
  }
}
