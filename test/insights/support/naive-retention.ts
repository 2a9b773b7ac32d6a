import type { QueryEvent } from '../../../src/insights/engine/data.js'
import { addDays, addMonths, localText, monthStart, weekStart } from './naive-calendar.js'
import { matchesFilter, type NaiveFilter } from './naive-filters.js'

/**
 * Retention by brute force from PostHog's documented rules: cohort intervals from date_from's
 * interval to date_to's; for each actor (and breakdown value) and cohort, every offset is
 * checked again against the events. Interval keys are local wall-clock text.
 */
export interface NaiveRetention {
  timezone: string
  weekStartDay: 0 | 1
  period: 'Hour' | 'Day' | 'Week' | 'Month'
  totalIntervals: number
  dateFrom: string
  dateTo: string
  target: { event: string; filter?: NaiveFilter }
  returning: { event: string; filter?: NaiveFilter }
  firstTime: boolean
  cumulative: boolean
  minimumOccurrences: number
  /** A breakdown by the event property $browser. */
  breakdownLimit?: number
}
export interface NaiveRow { label: string; values: number[]; breakdown_value?: string }

const keyOf = (q: NaiveRetention, instant: number): string => {
  const local = localText(instant, q.timezone)
  switch (q.period) {
    case 'Hour': return local.slice(0, 13)
    case 'Day': return local.slice(0, 10)
    case 'Week': return weekStart(local.slice(0, 10), q.weekStartDay)
    case 'Month': return monthStart(local.slice(0, 10))
  }
}

/** Interval keys from date_from's interval through date_to's (an hourly date_to is its first hour). */
const intervals = (q: NaiveRetention): string[] => {
  if (q.period === 'Hour') {
    const out: string[] = []
    for (let day = q.dateFrom; day <= q.dateTo; day = addDays(day, 1)) for (let h = 0; h < 24; h++) if (day < q.dateTo || h === 0) out.push(`${day} ${String(h).padStart(2, '0')}`)
    return out
  }
  const first = q.period === 'Week' ? weekStart(q.dateFrom, q.weekStartDay) : q.period === 'Month' ? monthStart(q.dateFrom) : q.dateFrom
  const last = q.period === 'Week' ? weekStart(q.dateTo, q.weekStartDay) : q.period === 'Month' ? monthStart(q.dateTo) : q.dateTo
  const out: string[] = []
  for (let key = first; key <= last; key = q.period === 'Week' ? addDays(key, 7) : q.period === 'Month' ? addMonths(key, 1) : addDays(key, 1)) out.push(key)
  return out
}

const browserOf = (e: QueryEvent): string => (typeof e.properties['$browser'] === 'string' ? e.properties['$browser'] : '')

const is = (entity: NaiveRetention['target'], e: QueryEvent): boolean => e.event === entity.event && (entity.filter === undefined || matchesFilter(entity.filter, e))

export const naiveRetention = (q: NaiveRetention, events: QueryEvent[]): NaiveRow[] => {
  const keys = intervals(q)
  const indexOf = (e: QueryEvent) => keys.indexOf(keyOf(q, e.timestamp))
  const breakdown = q.breakdownLimit !== undefined
  const subjects = new Map<string, QueryEvent[]>()
  for (const e of events) {
    const key = breakdown ? `${e.personId}|${browserOf(e)}` : e.personId
    subjects.set(key, [...(subjects.get(key) ?? []), e])
  }
  // cells[value][cohort][k]
  const cells = new Map<string, number[][]>()
  for (const [key, mine] of subjects) {
    const value = breakdown ? key.slice(key.indexOf('|') + 1) : ''
    const targets = mine.filter((e) => is(q.target, e))
    const inRange = targets.filter((e) => indexOf(e) >= 0).map(indexOf)
    const firstEver = [...targets].sort((a, b) => a.timestamp - b.timestamp)[0]
    const cohorts = q.firstTime ? (firstEver !== undefined && indexOf(firstEver) >= 0 ? [indexOf(firstEver)] : []) : [...new Set(inRange)]
    for (const c of cohorts) {
      const ks = [0]
      for (let k = 1; k < q.totalIntervals && c + k < keys.length; k++) {
        if (mine.filter((e) => is(q.returning, e) && indexOf(e) === c + k).length >= q.minimumOccurrences) ks.push(k)
      }
      const shown = q.cumulative ? Array.from({ length: Math.max(...ks) + 1 }, (_, k) => k) : ks
      if (!cells.has(value)) cells.set(value, keys.map(() => new Array<number>(q.totalIntervals).fill(0)))
      for (const k of shown) cells.get(value)![c]![k]! += 1
    }
  }
  const unit = q.period
  const rows = (grid: number[][], value?: string): NaiveRow[] =>
    grid.map((values, c) => ({ label: `${unit} ${c}`, values, ...(value === undefined ? {} : { breakdown_value: value }) }))
  if (!breakdown) return rows(cells.get('') ?? keys.map(() => new Array<number>(q.totalIntervals).fill(0)))
  const ranked = [...cells.entries()].map(([value, grid]) => ({ value, grid, size: grid.reduce((s, row) => s + row[0]!, 0) }))
    .sort((a, b) => b.size - a.size || (a.value < b.value ? -1 : 1))
  const out = ranked.slice(0, q.breakdownLimit).flatMap((r) => rows(r.grid, r.value))
  const rest = ranked.slice(q.breakdownLimit)
  if (rest.length > 0) {
    const other = keys.map((_, c) => new Array<number>(q.totalIntervals).fill(0).map((_, k) => rest.reduce((s, r) => s + r.grid[c]![k]!, 0)))
    out.push(...rows(other, '$$_posthog_breakdown_other_$$'))
  }
  return out
}
