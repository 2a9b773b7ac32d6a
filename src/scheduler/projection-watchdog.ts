import type { Job } from './scheduler.js'

export interface StalledProjection {
  readonly name: string
  readonly position: string | null
  readonly lag: number
}

/**
 * Warns when a projection is behind the head and has not moved since the previous check, the
 * sign of a crashed or failed projector (projections are otherwise caught up within a second).
 */
export const projectionWatchdog = (deps: {
  /** Each projection's stored position and its lag behind the head of the log. */
  status: () => Promise<Record<string, { readonly position: string | null; readonly lag: number }>>
  everyMs?: number; warn: (stalled: StalledProjection) => void
}): Job => {
  let previous: Record<string, string | null> = {}
  return {
    name: 'projection-watchdog',
    everyMs: deps.everyMs ?? 30_000,
    async run() {
      const status = await deps.status()
      for (const [name, { position, lag }] of Object.entries(status)) {
        if (lag > 0 && name in previous && previous[name] === position) deps.warn({ name, position, lag })
      }
      previous = Object.fromEntries(Object.entries(status).map(([name, s]) => [name, s.position]))
    },
  }
}
