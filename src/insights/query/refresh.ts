/** How a query request may use a cached result (PostHog's execution modes). */
export type RefreshMode =
  | 'blocking' | 'async' | 'async_except_on_cache_miss' | 'lazy_async' | 'force_blocking' | 'force_async' | 'force_cache'

const MODES: ReadonlySet<string> = new Set<RefreshMode>([
  'blocking', 'async', 'async_except_on_cache_miss', 'lazy_async', 'force_blocking', 'force_async', 'force_cache',
])

/**
 * A client's `refresh` as PostHog reads it: `true`, `1`, `yes` or empty force a computation; a
 * mode's name is that mode; anything else (absent, `false`, unknown words) is the default.
 */
export const refreshModeOf = (raw: unknown, fallback: RefreshMode): RefreshMode => {
  if (raw === true) return 'force_blocking'
  if (raw === undefined || raw === null || raw === false) return fallback
  const text = String(raw).trim().toLowerCase()
  if (text === '' || text === 'true' || text === '1' || text === 'yes') return 'force_blocking'
  return MODES.has(text) ? (text as RefreshMode) : fallback
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** How long a result stays fresh, by the query's interval (PostHog's defaults; `null`: no interval). */
const FRESH_FOR: Readonly<Record<string, number>> = { minute: 5 * MINUTE, hour: HOUR, day: 6 * HOUR, week: DAY, month: 2 * DAY, none: 6 * HOUR }
/** The longer thresholds `lazy_async` uses before starting a background run. */
const LAZILY_FRESH_FOR: Readonly<Record<string, number>> = { minute: 15 * MINUTE, hour: 2 * HOUR, day: 12 * HOUR, week: DAY, month: 2 * DAY, none: 12 * HOUR }

/** When a result computed at `at` stops being fresh. */
export const cacheTargetAge = (at: number, interval: string | null, lazy = false): number =>
  at + ((lazy ? LAZILY_FRESH_FOR : FRESH_FOR)[interval ?? 'none'] ?? FRESH_FOR['none']!)

/**
 * Whether a result computed at `at` is stale at `now`. A result whose range ended more than ten
 * seconds before it was computed never is: the past it counts does not change.
 */
export const isStale = (at: number, now: number, interval: string | null, rangeEnd: number | null, lazy = false): boolean =>
  !(rangeEnd !== null && rangeEnd < at - 10_000) && now > cacheTargetAge(at, interval, lazy)

/**
 * When a client may ask for a fresh result again (advisory): a minute for minute intervals and
 * queries without one, three minutes for hourly queries or ranges of a week at most, else 15.
 */
export const nextAllowedRefresh = (at: number, interval: string | null, rangeMs: number | null): number => {
  if (interval === null || interval === 'minute') return at + MINUTE
  if (interval === 'hour' || (rangeMs !== null && rangeMs <= 7 * DAY)) return at + 3 * MINUTE
  return at + 15 * MINUTE
}
