import type { QueryInput, QuerySource } from '../engine/data.js'
import { resolvePeriods } from '../engine/periods.js'
import { QueryRefused } from '../errors.js'
import { lifecycleActivity } from '../lifecycle/run-lifecycle.js'
import { LIFECYCLE_ORDER, type LifecycleStatus } from '../lifecycle/lifecycle-status.js'
import { retentionSubjects } from '../retention/retention-cohorts.js'
import { planRetention, retentionRange } from '../retention/retention-plan.js'
import { runRetention } from '../retention/run-retention.js'
import type { LifecycleQuery, RetentionQuery, StickinessQuery } from '../schema/insight-queries.js'
import { activeIntervals, planStickiness, stickinessActivity } from '../stickiness/run-stickiness.js'
import { OTHER_VALUE } from '../trends/breakdown-values.js'
import { addActor, bucketOfDay, newDrill, type Drill } from './drill.js'

interface PointOf {
  readonly day?: string | number | null | undefined
  readonly status?: string | null | undefined
  readonly interval?: number | null | undefined
  readonly series?: number | null | undefined
  readonly breakdown?: string | number | readonly (string | number)[] | null | undefined
  readonly compare?: 'current' | 'previous' | null | undefined
}

/** The actors with a lifecycle `status` in the period `day`; a returning actor's events of that period are its events. */
export const lifecycleActors = async (point: PointOf, query: LifecycleQuery, input: QueryInput, source: QuerySource): Promise<Drill> => {
  const status = point.status as LifecycleStatus
  if (!LIFECYCLE_ORDER.includes(status)) throw new QueryRefused(`Invalid lifecycle status ${JSON.stringify(point.status)}: use new, returning, resurrecting or dormant.`, 'invalid_input', 'status')
  if (point.day === undefined || point.day === null) throw new QueryRefused('A lifecycle actors query names its period with day.', 'invalid_input', 'day')
  const activity = await lifecycleActivity(query, input, source)
  const drill = newDrill(query.aggregation_group_type_index ?? null, { eventCount: true })
  const bucket = bucketOfDay(point.day, activity.range, activity.zone, input.environment.weekStartDay)
  const period = activity.range.buckets[bucket]
  if (period === undefined) return drill
  for (const [actor, facts] of activity.actors) {
    if (!activity.statuses(facts).some(([p, s]) => p === period && s === status)) continue
    addActor(drill, actor, null).eventCount = facts.periods.get(period) ?? 0
  }
  return drill
}

/** The actors active in exactly `day` intervals of a stickiness series (at least `day`, cumulative). */
export const stickinessActors = async (point: PointOf, query: StickinessQuery, input: QueryInput, source: QuerySource): Promise<Drill> => {
  const n = Number(point.day)
  if (!Number.isInteger(n) || n < 1) throw new QueryRefused(`Invalid day ${JSON.stringify(point.day)}: a stickiness actors query names a number of intervals.`, 'invalid_input', 'day')
  const index = point.series ?? 0
  const node = query.series[index]
  if (node === undefined) throw new QueryRefused(`The insight has no series ${index}.`, 'invalid_input', 'series')
  const plan = planStickiness(query, input)
  const interval = query.interval ?? 'day'
  const { periods, context } = await resolvePeriods(query.dateRange, interval, query.compareFilter, input, source)
  const [range] = periods.find(([, label]) => (point.compare ?? 'current') === (label ?? 'current')) ?? periods[0]!
  const activity = (await stickinessActivity(plan, range, context, input, source))[index]!
  const groupIndex = node.math === 'unique_group' ? node.math_group_type_index ?? null : query.aggregation_group_type_index ?? null
  const drill = newDrill(groupIndex, { eventCount: true })
  for (const [actor, intervals] of activity) {
    const active = activeIntervals(intervals, plan.criteria)
    if (active === 0 || (plan.cumulative ? active < n : active !== n)) continue
    addActor(drill, actor, null).eventCount = [...intervals.values()].reduce((a, b) => a + b, 0)
  }
  return drill
}

/** The actors of one retention cohort (`interval`), each with the offsets it appears at; a `breakdown` picks one value (or Other). */
export const retentionActors = async (point: PointOf, query: RetentionQuery, input: QueryInput, source: QuerySource): Promise<Drill> => {
  if (point.interval === undefined || point.interval === null) throw new QueryRefused('A retention actors query names its cohort with interval.', 'invalid_input', 'interval')
  const plan = planRetention(query, input)
  const range = await retentionRange(query, plan, input, source)
  const subjects = await retentionSubjects(plan, range, input, source)
  let keep: (value: string | null) => boolean = () => true
  if (plan.breakdown !== null && point.breakdown !== undefined && point.breakdown !== null) {
    const wanted = Array.isArray(point.breakdown) ? point.breakdown.join('::') : String(point.breakdown)
    if (wanted === OTHER_VALUE) {
      const listed = new Set((await runRetention(query, input, source)).results.map((row) => row.breakdown_value))
      keep = (value) => !listed.has(value!)
    } else keep = (value) => value === wanted
  }
  const drill = newDrill(query.aggregation_group_type_index ?? null, { appearances: true })
  for (const subject of subjects) {
    const ks = subject.cohorts.get(point.interval)
    if (ks === undefined || !keep(subject.value)) continue
    const facts = addActor(drill, subject.actor, null)
    facts.appearances = [...new Set([...(facts.appearances ?? []), ...ks])].sort((a, b) => a - b)
  }
  return drill
}
