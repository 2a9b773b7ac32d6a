import type { FastifyInstance } from 'fastify'
import { DomainError } from '../kernel/errors.js'
import { boundedCache } from '../kernel/bounded-cache.js'

/** A number of requests allowed per window of time. */
export interface RateWindow {
  readonly limit: number
  readonly ms: number
}

/** PostHog's limits for personal API keys on its CRUD endpoints: a burst per minute, a sustained rate per hour. */
export const POSTHOG_KEY_LIMITS: readonly RateWindow[] = [{ limit: 480, ms: 60_000 }, { limit: 4800, ms: 3_600_000 }]

const UNITS: Readonly<Record<string, number>> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 }

/** `480/minute,4800/hour` → windows; `off` → none; null when the text is not of that form. */
export const parseRateLimits = (text: string): RateWindow[] | null => {
  if (text.trim() === 'off') return []
  const windows = text.split(',').map((part) => {
    const match = /^\s*(\d+)\s*\/\s*(second|minute|hour|day)\s*$/.exec(part)
    return match ? { limit: Number(match[1]), ms: UNITS[match[2]!]! } : null
  })
  return windows.every((w): w is RateWindow => w !== null && w.limit > 0) && windows.length > 0 ? windows : null
}

export class Throttled extends DomainError {
  override name = 'Throttled'
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'throttled_error', 'throttled', `Request was throttled. Expected available in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`)
  }
}

interface Count {
  windowStart: number
  used: number
}

/** Counters by key: a Map, or a bounded cache when the keys counted at once are bounded. */
interface Counters {
  get(keyId: string): Count[] | undefined
  set(keyId: string, counts: Count[]): unknown
  delete(keyId: string): boolean
  entries(): Iterable<[string, Count[]]>
}

/**
 * Fixed-window counters per personal API key, as DRF's throttles keep them per key: a request
 * counts against every window, and is refused while any window is used up, with the seconds
 * until that window starts again. Counters live in this process. The same counters, keyed by
 * client address, count failed authentications.
 */
export class KeyRateLimiter {
  private readonly counts: Counters
  private sweptAt = 0

  /** `maxKeys` bounds the keys counted at once; past it the least recently counted key is forgotten, so memory stays bounded whatever the keys. */
  constructor(private readonly windows: readonly RateWindow[], maxKeys = Infinity) {
    this.counts = Number.isFinite(maxKeys) ? boundedCache<string, Count[]>({ max: maxKeys }) : new Map<string, Count[]>()
  }

  /** Counts a request of `keyId` at `now`; the seconds to wait when it is over a limit, else null. */
  take(keyId: string, now: number): number | null {
    if (this.windows.length === 0) return null
    this.sweep(now)
    let counts = this.counts.get(keyId)
    if (!counts) {
      counts = this.windows.map(() => ({ windowStart: now, used: 0 }))
      this.counts.set(keyId, counts)
    }
    const wait = this.waitOf(counts, now)
    if (wait !== null) return wait
    for (const count of counts) count.used++
    return null
  }

  /** The seconds `keyId` must wait at `now` without counting anything; null when it may go on. */
  waiting(keyId: string, now: number): number | null {
    const counts = this.counts.get(keyId)
    return counts ? this.waitOf(counts, now) : null
  }

  private waitOf(counts: Count[], now: number): number | null {
    let wait = 0
    this.windows.forEach((window, i) => {
      const count = counts[i]!
      if (now - count.windowStart >= window.ms) {
        count.windowStart = now
        count.used = 0
      }
      if (count.used >= window.limit) wait = Math.max(wait, count.windowStart + window.ms - now)
    })
    return wait > 0 ? Math.max(1, Math.ceil(wait / 1000)) : null
  }

  /** Forgets keys whose every window has ended, now and then, so memory follows the active keys. */
  private sweep(now: number): void {
    const longest = Math.max(...this.windows.map((w) => w.ms))
    if (now - this.sweptAt < longest) return
    this.sweptAt = now
    const ended: string[] = []
    for (const [keyId, counts] of this.counts.entries()) {
      if (counts.every((count, i) => now - count.windowStart >= this.windows[i]!.ms)) ended.push(keyId)
    }
    for (const keyId of ended) this.counts.delete(keyId)
  }
}

/** Counts each authenticated request against its key's limits; 429 with `Retry-After` beyond them. */
export const useRateLimits = (app: FastifyInstance, limiter: KeyRateLimiter, clock: () => number = Date.now): void => {
  app.addHook('preHandler', (request, _reply, done) => {
    const wait = request.principal ? limiter.take(request.principal.keyId, clock()) : null
    done(wait === null ? undefined : new Throttled(wait))
  })
}
