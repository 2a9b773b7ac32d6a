import type { QueryEvent } from '../../../src/insights/engine/data.js'
import { addDays, addMonths, daysBetween, localText, monthStart, weekStart } from './naive-calendar.js'
import { matchesAll, type NaiveFilter, type NaiveGroup } from './naive-filters.js'

/**
 * A brute-force evaluator written from PostHog's documented rules, not from the
 * engine: for each bucket it walks every event and checks everything again. Absolute date-only
 * ranges only, so no relative-date parsing is needed here.
 */
export interface NaiveSeries {
  event: string | null
  math: string
  properties?: NaiveFilter[]
}
export interface NaiveQuery {
  timezone: string
  weekStartDay: 0 | 1
  interval: 'hour' | 'day' | 'week' | 'month'
  dateFrom: string
  dateTo: string
  series: NaiveSeries[]
  properties?: NaiveFilter[] | NaiveGroup
  breakdown?: { type: 'event' | 'person'; key: string }
  breakdownLimit?: number
  compare?: boolean
  display?: 'ActionsLineGraph' | 'ActionsLineGraphCumulative' | 'BoldNumber'
}
export interface NaiveResult {
  label: string
  days: string[]
  data: number[]
  count: number
  aggregated_value?: number
  breakdown_value?: string
  compare_label?: string
}

const NULL = '$$_posthog_breakdown_null_$$'
const OTHER = '$$_posthog_breakdown_other_$$'

const text = (value: unknown): string | null => (value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value))
const numberOf = (value: unknown): number | null => {
  const t = text(value)
  return t !== null && /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null
}

interface Period { from: string; to: string }

/** Bucket keys of a period and the bucket of a local time. */
const bucketsOf = (q: NaiveQuery, p: Period): string[] => {
  const out: string[] = []
  if (q.interval === 'hour') {
    for (let day = p.from; day <= p.to; day = addDays(day, 1)) for (let h = 0; h < 24; h++) if (day < p.to || h === 0) out.push(`${day} ${String(h).padStart(2, '0')}:00:00`)
    return out
  }
  let key = q.interval === 'week' ? weekStart(p.from, q.weekStartDay) : q.interval === 'month' ? monthStart(p.from) : p.from
  while (key <= p.to) {
    out.push(key)
    key = q.interval === 'week' ? addDays(key, 7) : q.interval === 'month' ? addMonths(key, 1) : addDays(key, 1)
  }
  return out
}
const bucketKey = (q: NaiveQuery, local: string): string =>
  q.interval === 'hour' ? `${local.slice(0, 13)}:00:00` : q.interval === 'week' ? weekStart(local.slice(0, 10), q.weekStartDay) : q.interval === 'month' ? monthStart(local.slice(0, 10)) : local.slice(0, 10)
const inPeriod = (q: NaiveQuery, p: Period, local: string): boolean => {
  const day = local.slice(0, 10)
  if (q.interval === 'hour') return local >= `${p.from} 00:00:00.000` && local <= `${p.to} 00:00:00.000`
  return day >= (q.interval === 'month' ? monthStart(p.from) : p.from) && day <= p.to
}

const quantile = (values: number[], q: number): number => {
  if (values.length === 0) return 0
  const s = [...values].sort((a, b) => a - b)
  const pos = (s.length - 1) * q
  return s[Math.floor(pos)]! + (s[Math.ceil(pos)]! - s[Math.floor(pos)]!) * (pos - Math.floor(pos))
}
const stat = (values: number[], which: string): number => {
  if (values.length === 0) return 0
  if (which === 'sum') return values.reduce((a, b) => a + b, 0)
  if (which === 'avg') return values.reduce((a, b) => a + b, 0) / values.length
  if (which === 'min') return Math.min(...values)
  if (which === 'max') return Math.max(...values)
  return quantile(values, { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 }[which]!)
}

const distinct = (keys: (string | null)[]): number => new Set(keys.filter((k) => k !== null && k !== '')).size

export class NaiveTrends {
  constructor(private readonly q: NaiveQuery, private readonly events: QueryEvent[]) {}

  private local(e: QueryEvent): string { return localText(e.timestamp, this.q.timezone) }
  private matches(s: NaiveSeries, e: QueryEvent): boolean {
    return (s.event === null || e.event === s.event) && matchesAll(s.properties, e) && matchesAll(this.q.properties, e)
  }
  private breakdownOf(e: QueryEvent): string {
    const b = this.q.breakdown!
    const t = text((b.type === 'event' ? e.properties : e.personProperties)[b.key])
    return t === null || t === '' ? NULL : t
  }

  /** The value of one bucket (or of the whole period with `bucket` null) for events passing `keep`. */
  private value(s: NaiveSeries, p: Period, bucket: string | null, keep: (e: QueryEvent) => boolean): number {
    const inBucket = (e: QueryEvent) => inPeriod(this.q, p, this.local(e)) && (bucket === null || bucketKey(this.q, this.local(e)) === bucket)
    const math = s.math
    if (math === 'first_time_for_user' || math === 'first_matching_event_for_user') {
      let n = 0
      for (const person of new Set(this.events.map((e) => e.personId))) {
        const candidates = this.events.filter((e) => e.personId === person && (s.event === null || e.event === s.event) && (math === 'first_time_for_user' || this.matches(s, e)))
        const first = candidates.sort((a, b) => a.timestamp - b.timestamp)[0]
        if (first && this.matches(s, first) && keep(first) && inBucket(first)) n++
      }
      return n
    }
    const coarse = (math === 'weekly_active' && this.q.interval !== 'day' && this.q.interval !== 'hour') || (math === 'monthly_active' && this.q.interval === 'month')
    if ((math === 'weekly_active' || math === 'monthly_active') && !coarse) {
      const days = math === 'weekly_active' ? 7 : 30
      const last = bucket === null ? p.to : this.q.interval === 'week' ? addDays(bucket, 6) : bucket
      const first = addDays(last, 1 - days)
      return distinct(this.events.filter((e) => {
        const day = this.local(e).slice(0, 10)
        return this.matches(s, e) && keep(e) && day >= first && day <= last && day <= p.to
      }).map((e) => e.personId))
    }
    const E = this.events.filter((e) => this.matches(s, e) && keep(e) && inBucket(e))
    if (math === 'total') return E.length
    if (math === 'dau' || coarse) return distinct(E.map((e) => e.personId))
    if (math === 'unique_session') return distinct(E.map((e) => (typeof e.properties['$session_id'] === 'string' ? e.properties['$session_id'] : null)))
    if (math === 'unique_group') return distinct(E.map((e) => text(e.properties['$group_0'])))
    if (math.endsWith('_count_per_actor')) {
      const counts = new Map<string, number>()
      for (const e of E) counts.set(e.personId, (counts.get(e.personId) ?? 0) + 1)
      return stat([...counts.values()], math.replace('_count_per_actor', ''))
    }
    return stat(E.map((e) => numberOf(e.properties['amount'])).filter((n): n is number => n !== null), math)
  }

  private shape(s: NaiveSeries, p: Period, keep: (e: QueryEvent) => boolean, label: string): NaiveResult {
    const total = this.q.display === 'BoldNumber'
    const buckets = bucketsOf(this.q, p)
    const days = buckets
    if (total) return { label, days, data: [], count: 0, aggregated_value: this.value(s, p, null, keep) }
    let data = buckets.map((b) => this.value(s, p, b, keep))
    if (this.q.display === 'ActionsLineGraphCumulative') data = data.map((_, i) => data.slice(0, i + 1).reduce((a, b) => a + b, 0))
    const count = this.q.display === 'ActionsLineGraphCumulative' ? data[data.length - 1] ?? 0 : data.reduce((a, b) => a + b, 0)
    return { label, days, data, count }
  }

  private period(p: Period, compareLabel: string | undefined): NaiveResult[] {
    const out: NaiveResult[] = []
    for (const s of this.q.series) {
      const name = s.event ?? 'All events'
      if (!this.q.breakdown) {
        out.push({ ...this.shape(s, p, () => true, name), ...(compareLabel ? { compare_label: compareLabel } : {}) })
        continue
      }
      // With first-time and active-user maths events outside the period count too, and a value
      // is in the result when some event that counted carries it.
      const firstTime = ['first_time_for_user', 'first_matching_event_for_user', 'weekly_active', 'monthly_active'].includes(s.math)
      const values = [...new Set(this.events.filter((e) => this.matches(s, e) && (firstTime || inPeriod(this.q, p, this.local(e)))).map((e) => this.breakdownOf(e)))]
      const scored = values.map((v) => {
        const keep = (e: QueryEvent) => this.breakdownOf(e) === v
        const r = this.shape(s, p, keep, v)
        // Values rank by their aggregated numbers, before any cumulative display.
        const total = r.aggregated_value ?? bucketsOf(this.q, p).reduce((sum, b) => sum + this.value(s, p, b, keep), 0)
        return { v, r, total }
      }).filter((row) => !firstTime || row.total > 0)
      scored.sort((a, b) => b.total - a.total || Number(a.v === NULL) - Number(b.v === NULL) || (a.v < b.v ? -1 : a.v > b.v ? 1 : 0))
      const limit = this.q.breakdownLimit ?? 25
      const kept = scored.slice(0, limit).sort((a, b) => Number(a.v === NULL) - Number(b.v === NULL) || b.total - a.total || (a.v < b.v ? -1 : 1))
      const rows = kept.map(({ v, r }) => ({ ...r, breakdown_value: v }))
      if (scored.length > limit) {
        const keptValues = new Set(kept.map((k) => k.v))
        rows.push({ ...this.shape(s, p, (e) => !keptValues.has(this.breakdownOf(e)), OTHER), breakdown_value: OTHER })
      }
      for (const row of rows) {
        row.label = this.q.series.length > 1 ? `${name} - ${row.breakdown_value}` : row.breakdown_value!
        out.push({ ...row, ...(compareLabel ? { compare_label: compareLabel } : {}) })
      }
    }
    return out
  }

  results(): NaiveResult[] {
    const current = { from: this.q.dateFrom, to: this.q.dateTo }
    if (!this.q.compare) return this.period(current, undefined)
    const n = daysBetween(current.from, current.to) + 1
    const previous = { from: addDays(current.from, -n), to: addDays(current.from, -1) }
    return [...this.period(current, 'current'), ...this.period(previous, 'previous')]
  }
}

/** Stickiness: per person, distinct buckets with a matching event; data[n-1] = persons active in exactly n. */
export const naiveStickiness = (q: NaiveQuery, events: QueryEvent[], cumulative: boolean): number[][] => {
  const p = { from: q.dateFrom, to: q.dateTo }
  const buckets = bucketsOf(q, p)
  return q.series.map((s) => {
    const data = buckets.map(() => 0)
    for (const person of new Set(events.map((e) => e.personId))) {
      const active = new Set(events.filter((e) => e.personId === person && (s.event === null || e.event === s.event) && matchesAll(s.properties, e) && matchesAll(q.properties, e) && inPeriod(q, p, localText(e.timestamp, q.timezone))).map((e) => bucketKey(q, localText(e.timestamp, q.timezone))))
      if (active.size > 0) data[active.size - 1]! += 1
    }
    return cumulative ? data.map((_, i) => data.slice(i).reduce((a, b) => a + b, 0)) : data
  })
}

/** Lifecycle, person by person. */
export const naiveLifecycle = (q: NaiveQuery, events: QueryEvent[]): Record<string, number[]> => {
  const buckets = bucketsOf(q, { from: q.dateFrom, to: q.dateTo })
  const step = (key: string, n: number) => (q.interval === 'week' ? addDays(key, 7 * n) : q.interval === 'month' ? addMonths(key, n) : addDays(key, n))
  const lower = step(buckets[0]!, -1)
  const upper = step(buckets[buckets.length - 1]!, 1)
  const out: Record<string, number[]> = { new: buckets.map(() => 0), returning: buckets.map(() => 0), resurrecting: buckets.map(() => 0), dormant: buckets.map(() => 0) }
  const s = q.series[0]!
  for (const person of new Set(events.map((e) => e.personId))) {
    const mine = events.filter((e) => e.personId === person && (s.event === null || e.event === s.event) && matchesAll(s.properties, e) && matchesAll(q.properties, e))
    const active = [...new Set(mine.map((e) => bucketKey(q, localText(e.timestamp, q.timezone))).filter((k) => k >= lower && k < upper))].sort()
    if (active.length === 0) continue
    const created = bucketKey(q, localText(mine[0]!.personCreatedAt, q.timezone))
    active.forEach((period, i) => {
      const status = period === created ? 'new' : i > 0 && active[i - 1] === step(period, -1) ? 'returning' : 'resurrecting'
      const at = buckets.indexOf(period)
      if (at >= 0) out[status]![at]! += 1
      const after = step(period, 1)
      const dormantAt = buckets.indexOf(after)
      if (!active.includes(after) && dormantAt >= 0) out['dormant']![dormantAt]! -= 1
    })
  }
  return out
}
