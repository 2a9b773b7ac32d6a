import type { QueryInput, QuerySource, ScanWindow } from '../engine/data.js'
import { loadLookups, namesOf, visitRows } from '../engine/passes.js'
import { matches } from '../properties/event-matcher.js'
import type { RowContext } from '../properties/row-context.js'
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

/**
 * What one event is to a retention query, all read from the event when it is read: its actor,
 * breakdown value and time, and whether it is a target event, a returning event or both.
 */
export interface RetentionMark {
  readonly actor: string
  readonly value: string | null
  readonly timestamp: number
  readonly target: boolean
  readonly returning: boolean
  /** The local start of the period holding the event, when already known (it depends only on the event's time). */
  readonly start?: number
}

/** The mark of a row, or null when the row is neither a target nor a returning event of the query (or has no actor). */
export const retentionMark = (plan: RetentionPlan, row: RowContext): RetentionMark | null => {
  if (!plan.test(row)) return null
  const target = matches(plan.target, row)
  const returning = matches(plan.returning, row)
  if (!target && !returning) return null
  const actor = plan.actorOf(row)
  if (actor === null) return null
  return { actor, value: plan.breakdown ? plan.breakdown(row) : null, timestamp: row.event.timestamp, target, returning }
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
 * Marks gathered over the cohort intervals of one range, and the subjects they make. Recurring:
 * a cohort for each interval with a target event. First time: only the interval of the
 * subject's first target event ever, when that is in the range. Returns count in the intervals
 * after the cohort's, within the range. Marks may come in any order of time.
 */
export class RetentionActivities {
  private readonly activities = new Map<string, Activity>()
  private readonly indexOf: ReadonlyMap<number, number>

  constructor(private readonly plan: RetentionPlan, private readonly range: RetentionRange, private readonly weekStartDay: 0 | 1) {
    this.indexOf = new Map(range.starts.map((start, i) => [start, i]))
  }

  /** The local start of the period holding an instant. */
  startOf(t: number): number {
    return alignLocal(this.range.zone.toLocal(t), this.plan.period, this.weekStartDay)
  }

  /** The index of the cohort interval holding an instant, -1 outside the range. */
  intervalOf(t: number, start?: number): number {
    return t < this.range.from || t >= this.range.to ? -1 : this.indexOf.get(start ?? this.startOf(t)) ?? -1
  }

  /** Forgets every mark counted, to count another actor's over the same range. */
  clear(): void {
    this.activities.clear()
  }

  /** Counts one mark, for its own actor or the one given (a person the mark's has been merged into). */
  add(mark: RetentionMark, actor: string = mark.actor): void {
    const { value } = mark
    const key = value === null ? actor : `${actor}\u0000${value}`
    let activity = this.activities.get(key)
    if (!activity) this.activities.set(key, (activity = { actor, value, firstTarget: null, targets: new Set(), returns: new Map() }))
    const t = mark.timestamp
    const interval = this.intervalOf(t, mark.start)
    if (mark.target) {
      if (activity.firstTarget === null || t < activity.firstTarget) activity.firstTarget = t
      if (interval >= 0) activity.targets.add(interval)
    }
    if (mark.returning && interval >= 0) activity.returns.set(interval, (activity.returns.get(interval) ?? 0) + 1)
  }

  /** The subjects of the marks counted: those with at least one cohort. */
  subjects(): RetentionSubject[] {
    const { plan, range } = this
    const out: RetentionSubject[] = []
    for (const activity of this.activities.values()) {
      const first = activity.firstTarget === null ? -1 : this.intervalOf(activity.firstTarget)
      const cohortsOf = plan.firstTime ? (first >= 0 ? [first] : []) : [...activity.targets].sort((a, b) => a - b)
      if (cohortsOf.length === 0) continue
      const cohorts = new Map(cohortsOf.map((c) => [c, appearances(c, activity, plan, range.starts.length)]))
      out.push({ actor: activity.actor, value: activity.value, cohorts })
    }
    return out
  }
}

/** The instants a retention query reads events between: its cohort intervals (from the first event for first-time retention). */
export const retentionWindow = (plan: RetentionPlan, range: RetentionRange): ScanWindow => ({ from: plan.firstTime ? null : range.from, to: range.to - 1 })

/**
 * Reads the target and returning events and places every subject in its cohorts (first time:
 * the scan starts at the first event, to find each subject's first target event ever).
 */
export const retentionSubjects = async (plan: RetentionPlan, range: RetentionRange, input: QueryInput, source: QuerySource): Promise<RetentionSubject[]> => {
  const scan = { ...retentionWindow(plan, range), events: namesOf([plan.target.event, plan.returning.event]) }
  const lookups = await loadLookups(source, input.environment, plan.needs, scan)
  const activities = new RetentionActivities(plan, range, input.environment.weekStartDay)
  await visitRows(source, scan, lookups, (row) => {
    const mark = retentionMark(plan, row)
    if (mark !== null) activities.add(mark)
  })
  return activities.subjects()
}
