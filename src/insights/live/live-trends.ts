import type { QueryEnvironment, QueryEvent } from '../engine/data.js'
import { BucketIndex } from '../engine/bucket-index.js'
import { rowContext, type RowContext, type RowLookups } from '../properties/row-context.js'
import type { TrendsQuery } from '../schema/insight-queries.js'
import { shiftLocal } from '../time/calendar.js'
import { alignLocal, nextBucket, type ResolvedRange } from '../time/date-range.js'
import type { Zone } from '../time/zone.js'
import { keyOf, type BreakdownValue } from '../trends/breakdown-values.js'
import { DistinctCell, PerActorCell, type Cell } from '../trends/cells.js'
import type { Entry } from '../trends/collector.js'
import { trendsResponse, trendsRun, type Plan, type TrendsResponse, type TrendsRun } from '../trends/run-trends.js'
import { newCell, type SeriesPlan } from '../trends/series-plan.js'
import type { LiveQuery } from './live-query.js'
import { liveTrendsRefusal } from './live-support.js'

/** One breakdown value of one series: its cells, by the local start of the hour or day each counts. */
interface Stored {
  readonly value: BreakdownValue | null
  readonly cells: Map<number, Cell>
}

interface SeriesState {
  readonly plan: SeriesPlan
  /** By breakdown key ('' without a breakdown). */
  readonly entries: Map<string, Stored>
  /** First-time maths: each actor's first row, by timestamp and then uuid, as a scan meets them. */
  readonly firsts: Map<string, RowContext>
  /** Whether the series counts persons, whose ids change when persons merge. */
  readonly byPerson: boolean
}

/** A cell of the counted hours or days: its instants, from `start` to before `end`. */
interface Span {
  readonly start: number
  readonly end: number
}

const earlier = (a: RowContext, b: RowContext): boolean =>
  a.event.timestamp < b.event.timestamp || (a.event.timestamp === b.event.timestamp && a.event.uuid < b.event.uuid)

/** Moves what a cell counts of one actor to another (both persons' ids: one merged into the other). */
const renameActor = (cell: Cell, from: string, into: string): void => {
  if (cell instanceof DistinctCell) {
    if (cell.keys.delete(from)) cell.keys.add(into)
  } else if (cell instanceof PerActorCell) {
    const count = cell.counts.get(from)
    if (count === undefined) return
    cell.counts.delete(from)
    cell.counts.set(into, (cell.counts.get(into) ?? 0) + count)
  }
}

/** The actors or values a cell keeps besides itself. */
const cellSize = (cell: Cell): number =>
  cell instanceof DistinctCell ? cell.keys.size : cell instanceof PerActorCell ? cell.counts.size : 0

/**
 * A TrendsQuery answered continuously: each event updates the cells of the hour or day it falls
 * in (per series and breakdown value), persons' merges move what their cells count, and an answer
 * at any moment adds the cells up over that moment's range, through the same shaping as the query
 * engine (breakdown limits, formulas, compare, displays). `answer(now)` equals `runTrends` at
 * `now` over every event added, each with its person as it is after the merges told; it is null
 * when the range at `now` cuts through an hour or day (an explicit range's odd bounds), which only
 * the engine can count.
 */
export class LiveTrends implements LiveQuery<TrendsResponse> {
  private readonly series: readonly SeriesState[]
  private readonly lookups: RowLookups
  private readonly unit: 'hour' | 'day'
  private readonly zone: Zone
  private readonly breakdown: Plan['breakdown']
  private earliest: number | null = null

  /** Throws `QueryRefused` for a query the engine refuses, and an error for one `liveTrendsRefusal` refuses. */
  constructor(private readonly query: TrendsQuery, private readonly environment: QueryEnvironment, now: number) {
    const run = trendsRun(query, { environment, now }, null)
    const refusal = liveTrendsRefusal(query, run.plan.needs, environment)
    if (refusal !== null) throw new Error(`this trends query cannot be answered live: ${refusal}`)
    this.unit = run.current.interval === 'hour' ? 'hour' : 'day'
    this.zone = run.rangeContext.zone
    this.lookups = { groupTypes: environment.groupTypes, groups: new Map(), sessions: null }
    this.series = run.plan.series.map((plan) => ({
      plan,
      entries: new Map(),
      firsts: new Map(),
      byPerson: plan.math !== 'unique_session' && plan.measure.kind !== 'count' && plan.measure.kind !== 'numbers',
    }))
    this.breakdown = run.plan.breakdown
  }

  /** Counts one event; its `personId` is its person's as the event is added. */
  add(event: QueryEvent): void {
    if (this.earliest === null || event.timestamp < this.earliest) this.earliest = event.timestamp
    let row: RowContext | null = null
    for (const series of this.series) {
      const { plan } = series
      if (plan.event !== null && plan.event !== event.event) continue
      row ??= rowContext(event, this.lookups)
      const { measure } = plan
      if (measure.kind === 'first') {
        this.addFirst(series, row, measure.keyOf(row), measure.matching)
        continue
      }
      if (!plan.test(row)) continue
      if (measure.kind === 'active' && measure.keyOf(row) === null) continue
      const cell = this.cellOf(series, row)
      switch (measure.kind) {
        case 'count': cell.add(null, null); break
        case 'distinct': case 'per_actor': case 'active': cell.add(measure.keyOf(row), null); break
        case 'numbers': cell.add(measure.sessionKey?.(row) ?? null, measure.valueOf(row)); break
      }
    }
  }

  /** Person `from` was merged into person `into`: what counted `from` counts `into` now. */
  merge(from: string, into: string): void {
    if (from === into) return
    for (const series of this.series) {
      if (!series.byPerson) continue
      for (const stored of series.entries.values()) for (const cell of stored.cells.values()) renameActor(cell, from, into)
      const first = series.firsts.get(from)
      if (first === undefined) continue
      series.firsts.delete(from)
      const kept = series.firsts.get(into)
      if (kept === undefined || earlier(first, kept)) series.firsts.set(into, first)
    }
  }

  /** The query's answer at `now`, or null when its range at `now` cuts an hour or day in two. */
  answer(now: number): TrendsResponse | null {
    const earliestEvent = this.query.dateRange?.date_from === 'all' ? this.earliest : null
    const run = trendsRun(this.query, { environment: this.environment, now }, earliestEvent)
    const counted: Entry[][][] = []
    for (const period of run.periods) {
      const entries = this.series.map((series) => this.entriesOf(series, run, period.range))
      if (entries.includes(null)) return null
      counted.push(entries as Entry[][])
    }
    return trendsResponse(run, counted, this.environment.timezone)
  }

  size(): number {
    let size = 0
    for (const series of this.series) {
      size += series.firsts.size
      for (const stored of series.entries.values()) for (const cell of stored.cells.values()) size += 1 + cellSize(cell)
    }
    return size
  }

  private cellOf(series: SeriesState, row: RowContext): Cell {
    const value = this.breakdown ? this.breakdown.valueOf(row) : null
    const key = value === null ? '' : keyOf(value)
    let stored = series.entries.get(key)
    if (stored === undefined) {
      stored = { value, cells: new Map() }
      series.entries.set(key, stored)
    }
    const start = alignLocal(this.zone.toLocal(row.event.timestamp), this.unit, 0)
    let cell = stored.cells.get(start)
    if (cell === undefined) {
      cell = newCell(series.plan.measure)
      stored.cells.set(start, cell)
    }
    return cell
  }

  private addFirst(series: SeriesState, row: RowContext, actor: string | null, matching: boolean): void {
    if (actor === null || (matching && !series.plan.test(row))) return
    const kept = series.firsts.get(actor)
    if (kept === undefined || earlier(row, kept)) series.firsts.set(actor, row)
  }

  private spanOf(localStart: number): Span {
    return { start: this.zone.toInstant(localStart), end: this.zone.toInstant(nextBucket(localStart, this.unit)) }
  }

  /**
   * One series' entries over one range, as the engine's collector finishes them: null when a
   * stored cell is cut by the range's bounds or an active-users window.
   */
  private entriesOf(series: SeriesState, run: TrendsRun, range: ResolvedRange): Entry[] | null {
    const { totalValue } = run.shaping
    const buckets = new BucketIndex(range, this.zone, run.rangeContext.weekStartDay)
    const ends = totalValue ? [range.filterTo + 1] : buckets.ends
    const entries = new Map<string, Entry>()
    const entryOf = (key: string, value: BreakdownValue | null): Entry => {
      let entry = entries.get(key)
      if (entry === undefined) {
        entry = { value, cells: ends.map(() => newCell(series.plan.measure)) }
        entries.set(key, entry)
      }
      return entry
    }
    const { measure } = series.plan
    if (measure.kind === 'first') {
      for (const [actor, row] of series.firsts) {
        const found = buckets.indexOf(row.event.timestamp)
        if (found < 0 || !series.plan.test(row)) continue
        const value = this.breakdown ? this.breakdown.valueOf(row) : null
        entryOf(value === null ? '' : keyOf(value), value).cells[totalValue ? 0 : found]!.add(actor, null)
      }
    } else {
      const starts = measure.kind === 'active'
        ? ends.map((end) => this.zone.toInstant(shiftLocal(this.zone.toLocal(end), { days: measure.days }, -1)))
        : null
      for (const [key, stored] of series.entries) {
        for (const [local, cell] of stored.cells) {
          const targets = starts === null ? this.bucketOf(local, buckets, totalValue) : this.windowsOf(local, starts, ends, range.filterTo)
          if (targets === null) return null
          for (const target of targets) entryOf(key, stored.value).cells[target]!.merge(cell)
        }
      }
    }
    if (this.breakdown === null && entries.size === 0) entryOf('', null)
    return [...entries.values()]
  }

  /** The bucket a stored cell counts in (none when outside the range), or null when the range's bounds cut it. */
  private bucketOf(local: number, buckets: BucketIndex, totalValue: boolean): number[] | null {
    const { start, end } = this.spanOf(local)
    const { filterFrom, filterTo } = buckets.range
    if (end - 1 < filterFrom || start > filterTo) return []
    if (start < filterFrom || end - 1 > filterTo) return null
    const found = buckets.indexOf(start)
    return found < 0 ? [] : [totalValue ? 0 : found]
  }

  /** The active-users windows a stored cell counts in, or null when a window's bounds cut it. */
  private windowsOf(local: number, starts: readonly number[], ends: readonly number[], filterTo: number): number[] | null {
    const { start, end } = this.spanOf(local)
    if (start > filterTo) return []
    if (end - 1 > filterTo) return null
    const targets: number[] = []
    for (let i = 0; i < ends.length; i++) {
      const from = starts[i]!
      const to = ends[i]!
      if (end <= from || start >= to) continue
      if (start < from || end > to) return null
      targets.push(i)
    }
    return targets
  }
}
