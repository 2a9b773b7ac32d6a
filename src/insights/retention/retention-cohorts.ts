import type { QueryInput, QuerySource } from '../engine/data.js'
import { loadLookups, namesOf, visitRows } from '../engine/passes.js'
import { matches } from '../properties/event-matcher.js'
import { alignLocal } from '../time/date-range.js'
import type { RetentionPlan, RetentionRange } from './retention-plan.js'

/**
 * One retention subject (an actor, or an actor and a breakdown value: PostHog groups a
 * breakdown's events by actor and value) and the cohorts it belongs to: per cohort interval,
 * the offsets `k` at which it appears (0 for the cohort itself, k for a return k intervals later).
 */
export interface RetentionSubject {
  readonly actor: string
  readonly value: string | null
  readonly cohorts: ReadonlyMap<number, readonly number[]>
}

interface Activity {
  readonly actor: string
  readonly value: string | null
  firstTarget: number | null
  readonly targets: Set<number>
  readonly returns: Map<number, number>
}

const appearances = (cohort: number, activity: Activity, plan: RetentionPlan, intervals: number): number[] => {
  const out = [0]
  for (let k = 1; k < plan.lookahead && cohort + k < intervals; k++) {
    if ((activity.returns.get(cohort + k) ?? 0) >= plan.minimumOccurrences) out.push(k)
  }
  // Cumulative: a return at k counts in every cell up to k.
  return plan.cumulative ? Array.from({ length: out[out.length - 1]! + 1 }, (_, k) => k) : out
}

/**
 * Reads the target and returning events and places every subject in its cohorts. Recurring:
 * a cohort for each interval with a target event. First time: only the interval of the
 * subject's first target event ever, when that is in the range (so the scan starts at the
 * first event). Returns count in the intervals after the cohort's, within the range.
 */
export const retentionSubjects = async (plan: RetentionPlan, range: RetentionRange, input: QueryInput, source: QuerySource): Promise<RetentionSubject[]> => {
  const { zone, starts } = range
  const { weekStartDay } = input.environment
  const indexOf = new Map(starts.map((start, i) => [start, i]))
  const intervalOf = (t: number): number => (t < range.from || t >= range.to ? -1 : indexOf.get(alignLocal(zone.toLocal(t), plan.period, weekStartDay)) ?? -1)
  const scan = { from: plan.firstTime ? null : range.from, to: range.to - 1, events: namesOf([plan.target.event, plan.returning.event]) }
  const lookups = await loadLookups(source, input.environment, plan.needs, scan)
  const activities = new Map<string, Activity>()
  await visitRows(source, scan, lookups, (row) => {
    if (!plan.test(row)) return
    const isTarget = matches(plan.target, row)
    const isReturn = matches(plan.returning, row)
    if (!isTarget && !isReturn) return
    const actor = plan.actorOf(row)
    if (actor === null) return
    const value = plan.breakdown ? plan.breakdown(row) : null
    const key = value === null ? actor : `${actor}\u0000${value}`
    let activity = activities.get(key)
    if (!activity) activities.set(key, (activity = { actor, value, firstTarget: null, targets: new Set(), returns: new Map() }))
    const t = row.event.timestamp
    const interval = intervalOf(t)
    if (isTarget) {
      activity.firstTarget ??= t
      if (interval >= 0) activity.targets.add(interval)
    }
    if (isReturn && interval >= 0) activity.returns.set(interval, (activity.returns.get(interval) ?? 0) + 1)
  })
  const out: RetentionSubject[] = []
  for (const activity of activities.values()) {
    const first = activity.firstTarget === null ? -1 : intervalOf(activity.firstTarget)
    const cohortsOf = plan.firstTime ? (first >= 0 ? [first] : []) : [...activity.targets].sort((a, b) => a - b)
    if (cohortsOf.length === 0) continue
    const cohorts = new Map(cohortsOf.map((c) => [c, appearances(c, activity, plan, starts.length)]))
    out.push({ actor: activity.actor, value: activity.value, cohorts })
  }
  return out
}
