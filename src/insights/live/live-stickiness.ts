import { BucketIndex } from '../engine/bucket-index.js'
import type { QueryEnvironment, QueryEvent } from '../engine/data.js'
import { rowContext, type RowContext, type RowLookups } from '../properties/row-context.js'
import type { StickinessQuery } from '../schema/insight-queries.js'
import {
  activeIntervals, emptyHistogram, intervalsOf, stickinessActorOf, stickinessInterval, stickinessResponse, stickinessRun, tallyStickiness,
  type StickinessHistogram, type StickinessPlan, type StickinessResponse,
} from '../stickiness/run-stickiness.js'
import type { LiveQuery } from './live-query.js'
import { liveStickinessRefusal } from './live-support.js'

interface PersonState {
  /** Per series, the instants of the person's events the series counts. */
  readonly times: number[][]
  /** The person's part in the histograms: per period and series (`period * series + i`), its active intervals, as last counted. */
  part: number[]
}

/**
 * A StickinessQuery answered continuously. Each person keeps, per series, the instants of the
 * events the series counts for them (filters read when the event is added), and their part in
 * the answer: in each period and series, how many intervals they were active in. An event or a
 * merge marks its persons; an answer counts again only the marked persons (taking their old part
 * out of the histograms, adding the new), unless the periods moved (a new day, a new earliest
 * event for `all`): then every person is counted again, once. Intervals and criteria are the
 * engine's (`stickinessInterval`, `activeIntervals`), so `answer(now)` equals `runStickiness` at
 * `now` over every event added, each with its person as the merges told make it. The answer is
 * never null: every event is kept whole.
 */
export class LiveStickiness implements LiveQuery<StickinessResponse> {
  private readonly plan: StickinessPlan
  private readonly lookups: RowLookups
  private readonly persons = new Map<string, PersonState>()
  private readonly dirty = new Set<string>()
  /** Per period, per series: actors by number of active intervals (exactly n). */
  private counts: StickinessHistogram[][] | null = null
  /** The periods the counts are for (their bounds and buckets). */
  private countedFor: string | null = null
  private earliest: number | null = null

  /** Throws `QueryRefused` for a query the engine refuses, and an error for one `liveStickinessRefusal` refuses. */
  constructor(private readonly query: StickinessQuery, private readonly environment: QueryEnvironment, now: number) {
    const run = stickinessRun(query, { environment, now }, null)
    const refusal = liveStickinessRefusal(query, run.plan.needs, environment)
    if (refusal !== null) throw new Error(`this stickiness query cannot be answered live: ${refusal}`)
    this.plan = run.plan
    this.lookups = { groupTypes: environment.groupTypes, groups: new Map(), sessions: null }
  }

  /** Keeps one event's instant for each series that counts it; its `personId` is its person's as it is added. */
  add(event: QueryEvent): void {
    if (this.earliest === null || event.timestamp < this.earliest) this.earliest = event.timestamp
    let row: RowContext | null = null
    const { plans } = this.plan
    for (let i = 0; i < plans.length; i++) {
      const series = plans[i]!
      if (series.event !== null && series.event !== event.event) continue
      row ??= rowContext(event, this.lookups)
      const actor = stickinessActorOf(this.plan, i, row)
      if (actor === null) continue
      let state = this.persons.get(actor)
      if (state === undefined) this.persons.set(actor, (state = { times: plans.map(() => []), part: [] }))
      state.times[i]!.push(event.timestamp)
      this.dirty.add(actor)
    }
  }

  /** Person `from` was merged into person `into`: `from`'s events count for `into`. */
  merge(from: string, into: string): void {
    if (from === into) return
    const moved = this.persons.get(from)
    if (moved === undefined) return
    const kept = this.persons.get(into)
    if (kept === undefined) this.persons.set(into, { times: moved.times.map((times) => [...times]), part: [] })
    else moved.times.forEach((times, i) => kept.times[i]!.push(...times))
    for (const times of moved.times) times.length = 0
    this.dirty.add(from)
    this.dirty.add(into)
  }

  /** The query's answer at `now`. */
  size(): number {
    let size = 0
    for (const person of this.persons.values()) for (const times of person.times) size += times.length
    return size + this.persons.size
  }

  answer(now: number): StickinessResponse {
    const earliestEvent = this.query.dateRange?.date_from === 'all' ? this.earliest : null
    const run = stickinessRun(this.query, { environment: this.environment, now }, earliestEvent)
    const countedFor = JSON.stringify(run.periods.map(([range]) => [range.filterFrom, range.filterTo, range.buckets[0], range.buckets.length]))
    const buckets = run.periods.map(([range]) => new BucketIndex(range, run.rangeContext.zone, run.rangeContext.weekStartDay))
    if (this.counts === null || countedFor !== this.countedFor) {
      const counts = run.periods.map(([range]) => this.plan.plans.map(() => emptyHistogram(intervalsOf(this.plan, range))))
      for (const [id, state] of this.persons) this.recount(buckets, counts, id, state, false)
      this.counts = counts
      this.countedFor = countedFor
    } else {
      for (const id of this.dirty) {
        const state = this.persons.get(id)
        if (state !== undefined) this.recount(buckets, this.counts, id, state, true)
      }
    }
    this.dirty.clear()
    const counted = this.counts.map((perSeries) => perSeries.map(({ data, count }) => ({ data: [...data], count })))
    return stickinessResponse(run, counted, this.environment.timezone)
  }

  /** Counts one person's part again; `counted` when its old part is in the counts, to be taken away. */
  private recount(buckets: readonly BucketIndex[], counts: StickinessHistogram[][], id: string, state: PersonState, counted: boolean): void {
    const seriesCount = this.plan.plans.length
    const tally = (part: readonly number[], sign: 1 | -1) => part.forEach((n, at) => tallyStickiness(counts[Math.floor(at / seriesCount)]![at % seriesCount]!, n, sign))
    if (counted) tally(state.part, -1)
    if (state.times.every((times) => times.length === 0)) {
      this.persons.delete(id)
      return
    }
    state.part = this.partOf(buckets, state)
    tally(state.part, 1)
  }

  /** A person's active intervals per period and series, by the engine's intervals and criteria. */
  private partOf(buckets: readonly BucketIndex[], state: PersonState): number[] {
    const part: number[] = []
    for (const period of buckets) {
      for (const times of state.times) {
        const intervals = new Map<number, number>()
        for (const instant of times) {
          const index = stickinessInterval(this.plan, period, instant)
          if (index >= 0) intervals.set(index, (intervals.get(index) ?? 0) + 1)
        }
        part.push(activeIntervals(intervals, this.plan.criteria))
      }
    }
    return part
  }
}
