import type { QueryEvent } from '../engine/data.js'
import type { BucketIndex } from '../engine/bucket-index.js'
import type { RowContext } from '../properties/row-context.js'
import { shiftLocal } from '../time/calendar.js'
import type { Zone } from '../time/zone.js'
import { keyOf, type BreakdownPlan, type BreakdownValue } from './breakdown-values.js'
import type { Cell } from './cells.js'
import { newCell, type SeriesPlan } from './series-plan.js'

export interface Entry {
  readonly value: BreakdownValue | null
  readonly cells: Cell[]
}

/** The active-users window of each bucket: from `days` before the bucket's end to its end. */
const windowStarts = (ends: readonly number[], days: number, zone: Zone): number[] =>
  ends.map((end) => zone.toInstant(shiftLocal(zone.toLocal(end), { days }, -1)))

/**
 * Aggregates one series over one period while rows stream: per breakdown value, one cell per
 * bucket (one for the whole range with a total-value display).
 */
export class SeriesCollector {
  private readonly entries = new Map<string, Entry>()
  private readonly firsts = new Map<string, RowContext>()
  private readonly ends: readonly number[]
  private readonly starts: readonly number[] | null

  constructor(
    readonly plan: SeriesPlan,
    private readonly buckets: BucketIndex,
    private readonly breakdown: BreakdownPlan | null,
    private readonly totalValue: boolean,
    zone: Zone,
  ) {
    const { range } = buckets
    this.ends = totalValue ? [range.filterTo + 1] : buckets.ends
    const { measure } = plan
    this.starts = measure.kind === 'active' ? windowStarts(this.ends, measure.days, zone) : null
  }

  /** The earliest instant this series needs rows from (null: from the first event ever). */
  scanFrom(): number | null {
    if (this.plan.measure.kind === 'first') return null
    return this.starts ? Math.min(this.buckets.range.filterFrom, ...this.starts) : this.buckets.range.filterFrom
  }

  accepts(event: QueryEvent): boolean {
    return this.plan.event === null || event.event === this.plan.event
  }

  add(row: RowContext): void {
    const { measure } = this.plan
    if (measure.kind === 'first') return this.addFirst(row, measure.keyOf(row), measure.matching)
    if (measure.kind === 'active') return this.addActive(row, measure.keyOf(row))
    const index = this.indexOf(row.event.timestamp)
    if (index < 0 || !this.plan.test(row)) return
    const cell = this.cellsFor(row)[index]!
    switch (measure.kind) {
      case 'count': return cell.add(null, null)
      case 'distinct': case 'per_actor': return cell.add(measure.keyOf(row), null)
      case 'numbers': return cell.add(measure.sessionKey?.(row) ?? null, measure.valueOf(row))
    }
  }

  /** Breakdown values seen, each with its cells (one entry with value null without a breakdown). */
  finish(): Entry[] {
    for (const [actor, row] of this.firsts) {
      const index = this.indexOf(row.event.timestamp)
      if (index >= 0 && this.plan.test(row)) this.cellsFor(row)[index]!.add(actor, null)
    }
    this.firsts.clear()
    if (this.breakdown === null && this.entries.size === 0) this.cellsFor(null)
    return [...this.entries.values()]
  }

  private indexOf(instant: number): number {
    const index = this.buckets.indexOf(instant)
    return this.totalValue && index >= 0 ? 0 : index
  }

  private cellsFor(row: RowContext | null): Cell[] {
    const value = this.breakdown && row ? this.breakdown.valueOf(row) : null
    const key = value === null ? '' : keyOf(value)
    let entry = this.entries.get(key)
    if (!entry) {
      entry = { value, cells: this.ends.map(() => newCell(this.plan.measure)) }
      this.entries.set(key, entry)
    }
    return entry.cells
  }

  private addFirst(row: RowContext, actor: string | null, matching: boolean): void {
    if (actor === null || this.firsts.has(actor)) return
    if (matching && !this.plan.test(row)) return
    this.firsts.set(actor, row)
  }

  private addActive(row: RowContext, actor: string | null): void {
    if (actor === null || !this.plan.test(row)) return
    const t = row.event.timestamp
    if (t > this.buckets.range.filterTo) return
    const starts = this.starts!
    let low = 0
    let high = this.ends.length
    while (low < high) {
      const mid = (low + high) >> 1
      if (this.ends[mid]! > t) high = mid
      else low = mid + 1
    }
    let cells: Cell[] | null = null
    for (let i = low; i < this.ends.length && starts[i]! <= t; i++) {
      cells ??= this.cellsFor(row)
      cells[i]!.add(actor, null)
    }
  }
}
