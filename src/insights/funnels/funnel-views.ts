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
 * For each entrance period of a subject (the period of an attempt's first step, by `periodOf`;
 * null for none), the most steps its attempts of that period reached: a subject counts once per period.
 */
export const stepsByEntrance = <P>(subject: Subject, periodOf: (instant: number) => P | null): Map<P, number> => {
  const out = new Map<P, number>()
  for (const attempt of subject.attempts) {
    const period = periodOf(attempt.entry)
    if (period !== null) out.set(period, Math.max(out.get(period) ?? 0, attempt.times.length))
  }
  return out
}

/** For each subject and entrance period (by bucket index), the most steps its attempts of that period reached. */
export const stepsByPeriod = (subject: Subject, buckets: BucketIndex): Map<number, number> =>
  stepsByEntrance(subject, (instant) => {
    const bucket = buckets.indexOf(instant)
    return bucket >= 0 ? bucket : null
  })

interface TrendsContext {
  readonly range: ResolvedRange
  readonly zone: Zone
  readonly weekStartDay: WeekStartDay
  readonly from: number
  readonly to: number
  readonly limit: number | null
}

/** The subjects of one breakdown value (the only one without a breakdown), per entrance bucket: how many entered and converted. */
export interface TrendsGroup {
  readonly key: string
  readonly value: FunnelValue | null
  readonly entered: number[]
  readonly converted: number[]
}

/** Whether an entrance reaching `steps` steps entered the conversion (`entered`) and completed it (`converted`). */
export const entranceCounts = (steps: number, from: number, to: number): { entered: boolean; converted: boolean } =>
  ({ entered: steps > from, converted: steps > to })

/** Subjects grouped by breakdown value, in order of first appearance, with their entrances counted per bucket. */
export const trendsGroups = (subjects: readonly Subject[], range: ResolvedRange, buckets: BucketIndex, from: number, to: number): TrendsGroup[] => {
  const groups = new Map<string, TrendsGroup>()
  for (const subject of subjects) {
    const key = subject.value === null ? '' : funnelValueKey(subject.value)
    let group = groups.get(key)
    if (!group) groups.set(key, (group = { key, value: subject.value, entered: range.buckets.map(() => 0), converted: range.buckets.map(() => 0) }))
    for (const [bucket, steps] of stepsByPeriod(subject, buckets)) {
      const counted = entranceCounts(steps, from, to)
      if (counted.entered) group.entered[bucket]! += 1
      if (counted.converted) group.converted[bucket]! += 1
    }
  }
  return [...groups.values()]
}

/**
 * Funnel trends: per entrance period, the percentage (two decimals) of the subjects that
 * reached `from` who also reached `to`; 0 when none reached `from`. With a breakdown, the values
 * entering the most are kept (up to the limit) and listed by value, as PostHog lists them.
 */
export const shapeFunnelTrends = (groups: readonly TrendsGroup[], context: TrendsContext): FunnelTrendsSeries[] => {
  const { range } = context
  let kept = [...groups]
  if (context.limit === null && kept.length === 0) kept.push({ key: '', value: null, entered: range.buckets.map(() => 0), converted: range.buckets.map(() => 0) })
  if (context.limit !== null) {
    const total = (entered: number[]) => entered.reduce((a, b) => a + b, 0)
    const byKey = (a: TrendsGroup, b: TrendsGroup) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
    kept = kept.sort((a, b) => total(b.entered) - total(a.entered) || byKey(a, b)).slice(0, context.limit)
    kept.sort(byKey)
  }
  const days = range.buckets.map((bucket) => bucketDay(bucket, range.interval))
  const labels = range.buckets.map((bucket) => bucketLabel(bucket, range, context.weekStartDay))
  return kept.map((group) => {
    const series: FunnelTrendsSeries = {
      count: range.buckets.length,
      data: group.entered.map((n, i) => (n > 0 ? round2((group.converted[i]! / n) * 100) : 0)),
      days, labels,
    }
    if (group.value !== null) series.breakdown_value = group.value
    return series
  })
}

/** Funnel trends of a set of subjects (see `shapeFunnelTrends`). */
export const funnelTrends = (subjects: readonly Subject[], context: TrendsContext): FunnelTrendsSeries[] => {
  const buckets = new BucketIndex(context.range, context.zone, context.weekStartDay)
  return shapeFunnelTrends(trendsGroups(subjects, context.range, buckets, context.from, context.to), context)
}

/** The seconds a subject took from step `from` to step `to`, or null when it did not get there. */
export const conversionSample = (subject: Subject, from: number, to: number): number | null =>
  subject.best.times.length > to ? (subject.best.times[to]! - subject.best.times[from]!) / 1000 : null

/**
 * Time to convert, from the samples of the subjects that got there (see `conversionSample`), in
 * bins as PostHog draws them: `binCount` (1–90) bins, or ∛samples (1–60), of a whole number of
 * seconds (60 when all samples are equal), one more bin after the last, empty bins included.
 */
export const binConversionTimes = (samples: readonly number[], binCount: number | null): FunnelTimeToConvert => {
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

/** The conversion samples of a set of subjects, in their order. */
export const conversionSamples = (subjects: readonly Subject[], from: number, to: number): number[] =>
  subjects.flatMap((subject) => {
    const sample = conversionSample(subject, from, to)
    return sample === null ? [] : [sample]
  })

/** Time to convert from step `from` to step `to` of a set of subjects (see `binConversionTimes`). */
export const timeToConvert = (subjects: readonly Subject[], from: number, to: number, binCount: number | null): FunnelTimeToConvert =>
  binConversionTimes(conversionSamples(subjects, from, to), binCount)
