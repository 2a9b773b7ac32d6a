/**
 * What a client can be certain of about one value written by concurrent requests, some of which
 * were cut off by a crash.
 *
 * Every write is recorded with the moment its request was sent and the moment its answer (or its
 * connection error) arrived. An acknowledged write (2xx) took effect at some instant between the
 * two; a write whose answer never came may or may not have taken effect, but not after the error
 * arrived (the process that would apply it was dead by then). A write refused with a 4xx is not
 * recorded: it had no effect. Assuming each write is atomic and linearizable, the value now is
 * one written by a write that no acknowledged write certainly followed (one that started after it
 * ended), or, when no write was acknowledged, possibly still the value last observed.
 */
export type Outcome = 'acked' | 'unknown'

export interface Write<V> {
  readonly value: V
  readonly start: number
  readonly end: number
  readonly outcome: Outcome
  /** The request, for failure messages. */
  readonly label: string
}

export class Register<V extends string | number | boolean> {
  private base: V[]
  private writes: Write<V>[] = []

  /** `initial`: the values it may hold before any recorded write (none for a thing not yet made). */
  constructor(initial: readonly V[]) {
    this.base = [...new Set(initial)]
  }

  record(write: Write<V>): void {
    this.writes.push(write)
  }

  /** Every value it may hold now. */
  possible(): V[] {
    const acked = this.writes.filter((w) => w.outcome === 'acked')
    const open = this.writes.filter((w) => !acked.some((a) => a.start > w.end)).map((w) => w.value)
    return [...new Set([...(acked.length === 0 ? this.base : []), ...open])]
  }

  /** Whether it certainly holds `value`. */
  certainly(value: V): boolean {
    const possible = this.possible()
    return possible.length === 1 && possible[0] === value
  }

  /** Starts over from what was read while no request was in flight. */
  observed(value: V): void {
    this.base = [value]
    this.writes = []
  }

  /** Starts over from a reading that found it in several places at once (already a violation). */
  observedAmong(values: readonly V[]): void {
    this.base = [...new Set(values)]
    this.writes = []
  }

  /** Starts over from what it may hold, when it could not be read. */
  unobserved(): void {
    this.base = this.possible()
    this.writes = []
  }

  describe(): string {
    const writes = this.writes.map((w) => `${w.label} → ${JSON.stringify(w.value)} ${w.outcome}`).join('; ')
    return `before these requests: ${JSON.stringify(this.base)}; writes since: ${writes || 'none'}`
  }
}
