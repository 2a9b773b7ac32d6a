import { DAY, fieldsOf, startOfDay, startOfWeek } from './calendar.js'
import type { Interval, ResolvedRange, WeekStartDay } from './date-range.js'
import type { Zone } from './zone.js'

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/** `1-Jan-2024` (strftime `%-d-%b-%Y`). */
export const dayLabel = (local: number): string => {
  const f = fieldsOf(local)
  return `${f.day}-${MONTHS[f.month - 1]}-${f.year}`
}

const dayMonth = (local: number): string => {
  const f = fieldsOf(local)
  return `${f.day}-${MONTHS[f.month - 1]}`
}

/**
 * A week's label, the week clipped to the query's range: `1–7 Jan`, `31-Dec – 6-Jan`,
 * `28-Dec-2023 – 3-Jan-2024`, or one day's label when the clipped week is a single day.
 */
const weekLabel = (bucket: number, range: ResolvedRange, weekStartDay: WeekStartDay): string => {
  const weekStart = startOfWeek(bucket, weekStartDay)
  const start = Math.max(weekStart, startOfDay(range.from))
  const end = Math.max(start, Math.min(weekStart + 6 * DAY, startOfDay(range.to)))
  if (start === end) return dayLabel(start)
  const a = fieldsOf(start)
  const b = fieldsOf(end)
  if (a.year !== b.year) return `${dayLabel(start)} – ${dayLabel(end)}`
  if (a.month !== b.month) return `${dayMonth(start)} – ${dayMonth(end)}`
  return `${a.day}–${b.day} ${MONTHS[b.month - 1]}`
}

/** The label PostHog shows under a bucket (`format_label_date`). */
export const bucketLabel = (bucket: number, range: ResolvedRange, weekStartDay: WeekStartDay): string => {
  const f = fieldsOf(bucket)
  switch (range.interval) {
    case 'week': return weekLabel(bucket, range, weekStartDay)
    case 'hour':
    case 'minute': return `${f.day}-${MONTHS[f.month - 1]} ${pad(f.hour)}:${pad(f.minute)}`
    case 'month': return `${MONTHS[f.month - 1]} ${f.year}`
    case 'day': return dayLabel(bucket)
  }
}

const isoDate = (local: number): string => {
  const f = fieldsOf(local)
  return `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}`
}

/** A bucket in `days`: `YYYY-MM-DD`, with ` HH:MM:SS` for hour and minute buckets. */
export const bucketDay = (bucket: number, interval: Interval): string => {
  if (interval !== 'hour' && interval !== 'minute') return isoDate(bucket)
  const f = fieldsOf(bucket)
  return `${isoDate(bucket)} ${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`
}

/** A local time as an aware ISO datetime, as PostHog's JSON writes one (`Z` for UTC). */
export const isoDateTime = (local: number, zone: Zone): string => {
  const f = fieldsOf(local)
  const offsetMinutes = Math.round((local - zone.toInstant(local)) / 60_000)
  const sign = offsetMinutes < 0 ? '-' : '+'
  const abs = Math.abs(offsetMinutes)
  const zoneText = offsetMinutes === 0 ? 'Z' : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  // Ends of periods are …59.999999 in PostHog (microseconds); Hedgelog's last millisecond stands for them.
  const fraction = f.millisecond === 0 ? '' : f.millisecond === 999 ? '.999999' : `.${pad(f.millisecond, 3)}000`
  return `${isoDate(local)}T${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}${fraction}${zoneText}`
}
