import type { Schedule } from './schedule.js'

const UNITS: Readonly<Record<string, string>> = { daily: 'day', weekly: 'week', monthly: 'month', yearly: 'year' }
const ORDINALS: ReadonlyMap<number, string> = new Map([[1, 'first'], [2, 'second'], [3, 'third'], [4, 'fourth'], [-1, 'last']])

/** PostHog's fallback whenever a value has no wording (an unknown frequency, bysetpos 10 …). */
export const UNKNOWN_SCHEDULE_SUMMARY = 'sent on a schedule'

// Python's str.capitalize: the first character upper-case, the rest lower-case.
const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase()

/**
 * PostHog's `summary` text: "sent every week", "sent every 2 months on the first Wednesday",
 * "sent every month on the third day" (several weekdays). The "on the …" part appears only when
 * both a weekday list and a non-zero bysetpos are set.
 */
export const subscriptionSummary = (schedule: Pick<Schedule, 'frequency' | 'interval' | 'byweekday' | 'bysetpos'>): string => {
  const { frequency, interval, byweekday, bysetpos } = schedule
  const unit = Object.hasOwn(UNITS, frequency) ? UNITS[frequency] : undefined
  if (unit === undefined) return UNKNOWN_SCHEDULE_SUMMARY
  const every = interval > 1 ? `${interval} ${unit}s` : unit
  const [firstDay] = byweekday ?? []
  if (firstDay === undefined || !bysetpos) return `sent every ${every}`
  const ordinal = ORDINALS.get(bysetpos)
  if (ordinal === undefined) return UNKNOWN_SCHEDULE_SUMMARY
  const day = byweekday?.length === 1 ? capitalize(firstDay) : 'day'
  return `sent every ${every} on the ${ordinal} ${day}`
}
