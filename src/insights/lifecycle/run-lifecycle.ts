import type { JsonObject } from '../../eventlog/port.js'
import type { QueryInput, QuerySource } from '../engine/data.js'
import { loadLookups, visitRows } from '../engine/passes.js'
import { resolvePeriods } from '../engine/periods.js'
import { noNeeds } from '../properties/compile-filters.js'
import type { LifecycleQuery } from '../schema/insight-queries.js'
import { alignLocal, nextBucket, type ResolvedRange } from '../time/date-range.js'
import { bucketDay, bucketLabel } from '../time/labels.js'
import type { Zone } from '../time/zone.js'
import { compileSeries, eventsNodeOf } from '../trends/series-plan.js'
import { LIFECYCLE_ORDER, lifecycleStatuses, type LifecycleStatus } from './lifecycle-status.js'

export interface LifecycleSeries {
  action: JsonObject
  label: string
  status: LifecycleStatus
  data: number[]
  count: number
  labels: string[]
  days: string[]
}

export interface LifecycleResponse {
  readonly results: LifecycleSeries[]
  readonly timezone: string
  readonly resolved_date_range: { readonly date_from: string; readonly date_to: string }
}

/** One actor of a lifecycle query: when it was created, and its events per active period. */
export interface LifecycleActor {
  readonly createdAt: number
  readonly periods: Map<number, number>
}

/** A lifecycle query's actors and what classifying them needs. */
export interface LifecycleActivity {
  readonly actors: ReadonlyMap<string, LifecycleActor>
  readonly range: ResolvedRange
  readonly zone: Zone
  readonly label: string
  readonly event: string | null
  readonly resolvedDateRange: { readonly date_from: string; readonly date_to: string }
  /** An actor's statuses, per period: new, returning, resurrecting, dormant. */
  readonly statuses: (actor: LifecycleActor) => [period: number, status: LifecycleStatus][]
}

/**
 * Reads each actor's active periods from one period before the range to one after it (a
 * person, or a group with `aggregation_group_type_index`, created when the group was).
 */
export const lifecycleActivity = async (query: LifecycleQuery, input: QueryInput, source: QuerySource): Promise<LifecycleActivity> => {
  const interval = query.interval ?? 'day'
  const needs = noNeeds()
  const groupIndex = query.aggregation_group_type_index ?? null
  const plan = compileSeries({ ...eventsNodeOf(query.series[0]!), math: 'total' }, 0, {
    properties: query.properties, testAccountFilters: query.filterTestAccounts ? input.environment.testAccountFilters : null,
    aggregationGroupIndex: groupIndex, interval, now: input.now, needs,
  })
  const { current: range, context, resolvedDateRange } = await resolvePeriods(query.dateRange, interval, null, input, source)
  const { zone, weekStartDay } = context
  const previous = (period: number) => alignLocal(period - 1, interval, weekStartDay)
  const next = (period: number) => nextBucket(period, interval)
  const first = range.buckets[0] ?? alignLocal(range.from, interval, weekStartDay)
  const last = range.buckets[range.buckets.length - 1] ?? first
  const scan = { from: zone.toInstant(previous(first)), to: zone.toInstant(next(last)) - 1, events: plan.event === null ? null : [plan.event] }
  const lookups = await loadLookups(source, input.environment, needs, scan)
  const groups = groupIndex === null ? null : await source.groups(groupIndex)
  const actors = new Map<string, LifecycleActor>()
  await visitRows(source, scan, lookups, (row) => {
    if (!plan.test(row)) return
    const key = groupIndex === null ? row.event.personId : row.groupKey(groupIndex)
    if (key === null) return
    let actor = actors.get(key)
    if (!actor) {
      const createdAt = groupIndex === null ? row.event.personCreatedAt : groups?.get(key)?.createdAt ?? row.event.timestamp
      actors.set(key, (actor = { createdAt, periods: new Map() }))
    }
    const period = alignLocal(zone.toLocal(row.event.timestamp), interval, weekStartDay)
    actor.periods.set(period, (actor.periods.get(period) ?? 0) + 1)
  })
  const statuses = (actor: LifecycleActor) => {
    const created = alignLocal(zone.toLocal(actor.createdAt), interval, weekStartDay)
    return lifecycleStatuses([...actor.periods.keys()].sort((a, b) => a - b), created, previous, next)
  }
  return { actors, range, zone, label: plan.label, event: plan.event, resolvedDateRange, statuses }
}

/**
 * Runs a LifecycleQuery: each shown period counts actors new, returning, resurrecting and
 * (negatively) dormant in it.
 */
export const runLifecycle = async (query: LifecycleQuery, input: QueryInput, source: QuerySource): Promise<LifecycleResponse> => {
  const activity = await lifecycleActivity(query, input, source)
  const { range } = activity
  const { weekStartDay } = input.environment
  const index = new Map(range.buckets.map((bucket, i) => [bucket, i]))
  const data: Record<LifecycleStatus, number[]> = { new: [], returning: [], resurrecting: [], dormant: [] }
  for (const status of LIFECYCLE_ORDER) data[status] = range.buckets.map(() => 0)
  for (const actor of activity.actors.values()) {
    for (const [period, status] of activity.statuses(actor)) {
      const i = index.get(period)
      if (i !== undefined) data[status][i]! += status === 'dormant' ? -1 : 1
    }
  }
  const labels = range.buckets.map((bucket) => bucketLabel(bucket, range, weekStartDay))
  const days = range.buckets.map((bucket) => bucketDay(bucket, range.interval))
  const results = LIFECYCLE_ORDER.map((status): LifecycleSeries => ({
    action: { id: activity.event, name: activity.label, type: 'events', order: 0, math: 'total' },
    label: `${activity.label} - ${status}`, status, data: data[status], count: data[status].reduce((a, b) => a + b, 0), labels, days,
  }))
  return { results, timezone: input.environment.timezone, resolved_date_range: activity.resolvedDateRange }
}
