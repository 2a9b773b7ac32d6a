import type { QueryEvent, ScanWindow } from '../engine/data.js'
import type { LiveQuery } from './live-query.js'

/** The window a query's engine reads at a moment. */
export type WindowAt = (now: number) => ScanWindow

/** How far ahead a window is read again to tell an end that moves with time from one that does not. */
const LATER_MS = 400 * 86_400_000

/**
 * The bounds outside which an event can change none of a query's answers from `now` on. A date
 * range is either explicit or relative to the moment it is read at, so its window's start never
 * moves back as time goes on: what lies before the start at `now` is read by no later answer. Its
 * end stays where it is only when the range names it (an explicit `date_to`); an end that moves
 * with time will reach any later event, so then nothing after it is left out.
 */
export const lastingBounds = (windowAt: WindowAt, now: number): { readonly from: number | null; readonly to: number | null } => {
  const at = windowAt(now)
  const later = windowAt(now + LATER_MS)
  return {
    from: at.from !== null && later.from !== null && later.from >= at.from ? at.from : null,
    to: later.to === at.to ? at.to : null,
  }
}

/**
 * A live query that is not told of events no answer of it will read (`lastingBounds`): a
 * dashboard of last summer's insights keeps nothing of today's traffic, and an import of old
 * events costs a query of the last seven days nothing.
 */
export class WindowedLive<Response> implements LiveQuery<Response> {
  private readonly from: number
  private readonly to: number

  constructor(private readonly inner: LiveQuery<Response>, bounds: { readonly from: number | null; readonly to: number | null }) {
    this.from = bounds.from ?? Number.NEGATIVE_INFINITY
    this.to = bounds.to ?? Number.POSITIVE_INFINITY
  }

  add(event: QueryEvent): void {
    if (event.timestamp >= this.from && event.timestamp <= this.to) this.inner.add(event)
  }

  merge(from: string, into: string): void {
    this.inner.merge(from, into)
  }

  answer(now: number): Response | null {
    return this.inner.answer(now)
  }

  size(): number {
    return this.inner.size()
  }
}
