import { quantile } from '../trends/statistics.js'
import { funnelValueKey, otherOf, type FunnelValue } from './funnel-breakdown.js'
import type { FunnelPlan, Subject } from './funnel-subjects.js'

/** One step of a funnel result, as PostHog's funnel runner writes it. */
export interface FunnelStep {
  action_id: string | null
  name: string | null
  custom_name: string | null
  order: number
  people: never[]
  count: number
  type: 'events'
  average_conversion_time: number | null
  median_conversion_time: number | null
  /** Classic results linked to the people of a step; people now come from FunnelsActorsQuery, so these stay null. */
  converted_people_url: null
  dropped_people_url: null
  breakdown?: FunnelValue
  breakdown_value?: FunnelValue
}

/** What a group of subjects adds up to: per step, how many reached it and their conversion times (seconds). */
export interface Tally {
  readonly value: FunnelValue | null
  readonly counts: number[]
  readonly times: number[][]
}

export const newTally = (value: FunnelValue | null, stepCount: number): Tally =>
  ({ value, counts: new Array<number>(stepCount).fill(0), times: Array.from({ length: stepCount }, () => []) })

/** Counts a subject (`sign` 1) at every step its best attempt reached, or takes it back (`sign` -1). */
export const countSubject = (counts: number[], subject: Subject, sign: 1 | -1 = 1): void => {
  for (let step = 0; step < subject.best.times.length; step++) counts[step]! += sign
}

/** A subject's conversion times (seconds), each added to the samples of the step it reached. */
export const addConversionTimes = (times: number[][], subject: Subject): void => {
  const reached = subject.best.times
  for (let step = 1; step < reached.length; step++) times[step]!.push((reached[step]! - reached[step - 1]!) / 1000)
}

const addSubject = (tally: Tally, subject: Subject): void => {
  countSubject(tally.counts, subject)
  addConversionTimes(tally.times, subject)
}

/** Subjects added up per breakdown value (one tally without a breakdown), in order of first appearance. */
export const tallySubjects = (subjects: readonly Subject[], stepCount: number): Tally[] => {
  const byValue = new Map<string, Tally>()
  for (const subject of subjects) {
    const key = subject.value === null ? '' : funnelValueKey(subject.value)
    let tally = byValue.get(key)
    if (!tally) byValue.set(key, (tally = newTally(subject.value, stepCount)))
    addSubject(tally, subject)
  }
  if (byValue.size === 0) byValue.set('', newTally(null, stepCount))
  return [...byValue.values()]
}

/** PostHog orders breakdown values by the last step's count, then the one before, and so on; then by value. */
const byCounts = (a: Tally, b: Tally): number => {
  for (let step = a.counts.length - 1; step >= 0; step--) {
    const diff = b.counts[step]! - a.counts[step]!
    if (diff !== 0) return diff
  }
  const x = funnelValueKey(a.value ?? '')
  const y = funnelValueKey(b.value ?? '')
  return x < y ? -1 : x > y ? 1 : 0
}

/** Keeps the `limit` first values and merges the rest into `Other`, then orders all of them. */
export const limitValues = (tallies: Tally[], limit: number): Tally[] => {
  const ranked = [...tallies].sort(byCounts)
  const kept = ranked.slice(0, limit)
  const rest = ranked.slice(limit)
  if (rest.length > 0) {
    const other = newTally(otherOf(rest[0]!.value!), rest[0]!.counts.length)
    for (const tally of rest) {
      tally.counts.forEach((n, step) => (other.counts[step]! += n))
      tally.times.forEach((samples, step) => other.times[step]!.push(...samples))
    }
    kept.push(other)
  }
  return kept.sort(byCounts)
}

const mean = (values: readonly number[]): number | null => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length)

/** The step objects of one tally. */
export const shapeSteps = (tally: Tally, plan: FunnelPlan): FunnelStep[] =>
  plan.steps.map((step, order): FunnelStep => {
    const unordered = plan.rules.order === 'unordered'
    const times = tally.times[order]!
    const shaped: FunnelStep = {
      action_id: unordered ? null : step.event,
      name: unordered ? `Completed ${order + 1} step${order === 0 ? '' : 's'}` : step.event,
      custom_name: unordered ? null : step.node.custom_name ?? null,
      order,
      people: [],
      count: tally.counts[order]!,
      type: 'events',
      average_conversion_time: order === 0 ? null : mean(times),
      median_conversion_time: order === 0 || times.length === 0 ? null : quantile(times, 0.5),
      converted_people_url: null,
      dropped_people_url: null,
    }
    if (tally.value !== null) Object.assign(shaped, { breakdown: tally.value, breakdown_value: tally.value })
    return shaped
  })
