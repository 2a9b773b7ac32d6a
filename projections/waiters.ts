import { comparePositions, type Position } from '../src/eventlog/port.js'

interface Waiter {
  readonly position: Position
  readonly resolve: (reached: boolean) => void
}

/**
 * Read-your-writes: callers wait until a projection has applied everything up to a log position.
 * `advance` moves the applied position and wakes whoever it satisfies; `release` answers every
 * caller false (the projection stopped).
 */
export class PositionWaiters {
  /** Every event at or before this position has been applied and committed (or skipped). */
  position: Position | null = null
  /** When `position` last moved, in ms since the epoch. */
  movedAt = Date.now()
  /** Told of every move. */
  onAdvance: ((position: Position) => void) | undefined
  private readonly waiting = new Set<Waiter>()

  advance(position: Position): void {
    this.position = position
    this.movedAt = Date.now()
    this.onAdvance?.(position)
    for (const waiter of [...this.waiting]) {
      if (comparePositions(position, waiter.position) >= 0) {
        this.waiting.delete(waiter)
        waiter.resolve(true)
      }
    }
  }

  reached(position: Position): boolean {
    return this.position !== null && comparePositions(this.position, position) >= 0
  }

  /** Resolves true once `position` is reached, false after `timeoutMs` or on `release`. */
  wait(position: Position, timeoutMs: number): Promise<boolean> {
    if (this.reached(position)) return Promise.resolve(true)
    return new Promise((resolve) => {
      const waiter: Waiter = {
        position,
        resolve: (reached) => { clearTimeout(timer); resolve(reached) },
      }
      const timer = setTimeout(() => { this.waiting.delete(waiter); resolve(false) }, timeoutMs)
      this.waiting.add(waiter)
    })
  }

  release(): void {
    for (const waiter of this.waiting) waiter.resolve(false)
    this.waiting.clear()
  }
}
