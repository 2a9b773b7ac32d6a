import { alignLocal, nextBucket, type ResolvedRange, type WeekStartDay } from '../time/date-range.js'
import type { Zone } from '../time/zone.js'

/** Finds the bucket of an instant in a resolved range: by the zone's wall clock, as ClickHouse truncates. */
export class BucketIndex {
  private readonly byStart = new Map<number, number>()
  /** Instants where each bucket ends (exclusive). */
  readonly ends: readonly number[]

  constructor(readonly range: ResolvedRange, private readonly zone: Zone, private readonly weekStartDay: WeekStartDay) {
    range.buckets.forEach((start, index) => this.byStart.set(start, index))
    this.ends = range.buckets.map((start) => zone.toInstant(nextBucket(start, range.interval)))
  }

  /** The bucket holding `instant`, or -1 when the instant is outside the range's events. */
  indexOf(instant: number): number {
    if (instant < this.range.filterFrom || instant > this.range.filterTo) return -1
    return this.byStart.get(alignLocal(this.zone.toLocal(instant), this.range.interval, this.weekStartDay)) ?? -1
  }
}
