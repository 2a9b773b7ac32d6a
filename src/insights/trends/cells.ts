import { statistic, type Statistic } from './statistics.js'

/**
 * What one series accumulates for one breakdown value and one bucket. Cells merge, so the values
 * beyond the breakdown limit can become one "Other" cell with exact distinct counts.
 */
export interface Cell {
  /** Adds one observation: a distinct key, a number, or nothing (a plain count). */
  add(key: string | null, value: number | null): void
  merge(other: Cell): void
  value(): number
}

export class CountCell implements Cell {
  private n = 0
  add(): void { this.n += 1 }
  merge(other: Cell): void { this.n += (other as CountCell).n }
  value(): number { return this.n }
}

export class DistinctCell implements Cell {
  readonly keys = new Set<string>()
  add(key: string | null): void { if (key !== null) this.keys.add(key) }
  merge(other: Cell): void { for (const key of (other as DistinctCell).keys) this.keys.add(key) }
  value(): number { return this.keys.size }
}

/** A statistic over numbers; sums, averages and extremes keep a summary, quantiles keep the values. */
export class NumbersCell implements Cell {
  private readonly values: number[] = []
  private sum = 0
  private count = 0
  private min = Infinity
  private max = -Infinity
  constructor(private readonly which: Statistic) {}
  add(_key: string | null, value: number | null): void {
    if (value === null) return
    this.sum += value
    this.count += 1
    this.min = Math.min(this.min, value)
    this.max = Math.max(this.max, value)
    if (this.keepsValues()) this.values.push(value)
  }
  merge(other: Cell): void {
    const o = other as NumbersCell
    this.sum += o.sum
    this.count += o.count
    this.min = Math.min(this.min, o.min)
    this.max = Math.max(this.max, o.max)
    if (this.keepsValues()) this.values.push(...o.values)
  }
  value(): number {
    if (this.count === 0) return 0
    switch (this.which) {
      case 'sum': return this.sum
      case 'avg': return this.sum / this.count
      case 'min': return this.min
      case 'max': return this.max
      default: return statistic(this.values, this.which)
    }
  }
  private keepsValues(): boolean {
    return this.which !== 'sum' && this.which !== 'avg' && this.which !== 'min' && this.which !== 'max'
  }
}

/** One number per key (a session's duration counted once, whichever of its events comes first). */
export class KeyedNumbersCell implements Cell {
  readonly byKey = new Map<string, number>()
  constructor(private readonly which: Statistic) {}
  add(key: string | null, value: number | null): void {
    if (key !== null && value !== null && !this.byKey.has(key)) this.byKey.set(key, value)
  }
  merge(other: Cell): void { for (const [key, value] of (other as KeyedNumbersCell).byKey) if (!this.byKey.has(key)) this.byKey.set(key, value) }
  value(): number { return statistic([...this.byKey.values()], this.which) }
}

/** Events per actor, then a statistic across the actors seen. */
export class PerActorCell implements Cell {
  readonly counts = new Map<string, number>()
  constructor(private readonly which: Statistic) {}
  add(key: string | null): void { if (key !== null) this.counts.set(key, (this.counts.get(key) ?? 0) + 1) }
  merge(other: Cell): void { for (const [key, n] of (other as PerActorCell).counts) this.counts.set(key, (this.counts.get(key) ?? 0) + n) }
  value(): number { return statistic([...this.counts.values()], this.which) }
}
