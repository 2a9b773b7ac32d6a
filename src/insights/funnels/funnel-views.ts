import { BucketIndex } from '../engine/bucket-index.js'
import type { ResolvedRange, WeekStartDay } from '../time/date-range.js'
import { bucketDay, bucketLabel } from '../time/labels.js'
import type { Zone } from '../time/zone.js'
import { funnelValueKey, type FunnelValue } from './funnel-breakdown.js'
import type { Subject } from './funnel-subjects.js'

/** A funnel's conversion per entrance period (`funnelVizType: trends`), one per breakdown value. */
export interface FunnelTrendsSeries {
  count: number
  data: number[]
  days: string[]
  labels: string[]
  breakdown_value?: FunnelValue
}

export interface FunnelTimeToConvert {
  average_conversion_time: number | null
  bins: [number, number][]
}

const round2 = (n: number): number => Math.round(n * 100) / 100

/**
 * For each subject and entrance period (the period of an attempt's first step), the most steps
 * its attempts of that period reached: a subject counts once per period.
 */
export const stepsByPeriod = (subject: Subject, buckets: BucketIndex): Map<number, number> => {
  const out = new Map<number, number>()
  for (const attempt of subject.attempts) {
    const bucket = buckets.indexOf(attempt.entry)
    if (bucket >= 0) out.set(bucket, Math.max(out.get(bucket) ?? 0, attempt.times.length))
  }
  return out
}

interface TrendsContext {
  readonly range: ResolvedRange
  readonly zone: Zone
  readonly weekStartDay: WeekStartDay
  readonly from: number
  readonly to: number
  readonly limit: number | null
}

/**
 * Funnel trends: per entrance period, the percentage (two decimals) of the subjects that
 * reached `from` who also reached `to`; 0 when none reached `from`. With a breakdown, the values
 * entering the most are kept (up to the limit) and listed by value, as PostHog lists them.
 */
export const funnelTrends = (subjects: readonly Subject[], context: TrendsContext): FunnelTrendsSeries[] => {
  const { range } = context
  const buckets = new BucketIndex(range, context.zone, context.weekStartDay)
  const groups = new Map<string, { value: FunnelValue | null; entered: number[]; converted: number[] }>()
  for (const subject of subjects) {
    const key = subject.value === null ? '' : funnelValueKey(subject.value)
    let group = groups.get(key)
    if (!group) groups.set(key, (group = { value: subject.value, entered: range.buckets.map(() => 0), converted: range.buckets.map(() => 0) }))
    for (const [bucket, steps] of stepsByPeriod(subject, buckets)) {
      if (steps > context.from) group.entered[bucket]! += 1
      if (steps > context.to) group.converted[bucket]! += 1
    }
  }
  if (context.limit === null && groups.size === 0) groups.set('', { value: null, entered: range.buckets.map(() => 0), converted: range.buckets.map(() => 0) })
  let kept = [...groups.entries()]
  if (context.limit !== null) {
    const total = (entered: number[]) => entered.reduce((a, b) => a + b, 0)
    kept = kept.sort(([ka, a], [kb, b]) => total(b.entered) - total(a.entered) || (ka < kb ? -1 : ka > kb ? 1 : 0)).slice(0, context.limit)
    kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  }
  const days = range.buckets.map((bucket) => bucketDay(bucket, range.interval))
  const labels = range.buckets.map((bucket) => bucketLabel(bucket, range, context.weekStartDay))
  return kept.map(([, group]) => {
    const series: FunnelTrendsSeries = {
      count: range.buckets.length,
      data: group.entered.map((n, i) => (n > 0 ? round2((group.converted[i]! / n) * 100) : 0)),
      days, labels,
    }
    if (group.value !== null) series.breakdown_value = group.value
    return series
  })
}

/**
 * Time to convert: the seconds from step `from` to step `to` of each subject that got there, in
 * bins as PostHog draws them: `binCount` (1–90) bins, or ∛samples (1–60), of a whole number of
 * seconds (60 when all samples are equal), one more bin after the last, empty bins included.
 */
export const timeToConvert = (subjects: readonly Subject[], from: number, to: number, binCount: number | null): FunnelTimeToConvert => {
  const samples = subjects.filter((s) => s.best.times.length > to).map((s) => (s.best.times[to]! - s.best.times[from]!) / 1000)
  const low = samples.length === 0 ? 0 : Math.floor(Math.min(...samples))
  const high = samples.length === 0 ? 1 : Math.ceil(Math.max(...samples))
  const average = samples.length === 0 ? null : round2(samples.reduce((a, b) => a + b, 0) / samples.length)
  const count = binCount !== null ? Math.min(90, Math.max(1, binCount)) : Math.min(60, Math.max(1, Math.ceil(Math.cbrt(samples.length))))
  const raw = Math.ceil((high - low) / count)
  const width = raw > 0 ? raw : 60
  const bins: [number, number][] = Array.from({ length: count + 1 }, (_, i) => [low + i * width, 0])
  for (const sample of samples) {
    const bin = bins[Math.floor((sample - low) / width)]
    if (bin) bin[1] += 1
  }
  return { average_conversion_time: average, bins }
}
