import type { JsonObject } from '../../eventlog/port.js'
import type { QueryInput, QuerySource } from '../engine/data.js'
import { loadLookups, visitRows } from '../engine/passes.js'
import { resolvePeriods } from '../engine/periods.js'
import { noNeeds } from '../properties/compile-filters.js'
import type { LifecycleQuery } from '../schema/insight-queries.js'
import { alignLocal, nextBucket } from '../time/date-range.js'
import { bucketDay, bucketLabel } from '../time/labels.js'
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

interface Actor {
  readonly createdAt: number
  readonly periods: Set<number>
}

/**
 * Runs a LifecycleQuery: each actor's active periods are read from one period before the range
 * to one after it, and each shown period counts actors new, returning, resurrecting and
 * (negatively) dormant in it.
 */
export const runLifecycle = async (query: LifecycleQuery, input: QueryInput, source: QuerySource): Promise<LifecycleResponse> => {
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
  const actors = new Map<string, Actor>()
  await visitRows(source, scan, lookups, (row) => {
    if (!plan.test(row)) return
    const key = groupIndex === null ? row.event.personId : row.groupKey(groupIndex)
    if (key === null) return
    let actor = actors.get(key)
    if (!actor) {
      const createdAt = groupIndex === null ? row.event.personCreatedAt : groups?.get(key)?.createdAt ?? row.event.timestamp
      actors.set(key, (actor = { createdAt, periods: new Set() }))
    }
    actor.periods.add(alignLocal(zone.toLocal(row.event.timestamp), interval, weekStartDay))
  })
  const index = new Map(range.buckets.map((bucket, i) => [bucket, i]))
  const data: Record<LifecycleStatus, number[]> = { new: [], returning: [], resurrecting: [], dormant: [] }
  for (const status of LIFECYCLE_ORDER) data[status] = range.buckets.map(() => 0)
  for (const actor of actors.values()) {
    const created = alignLocal(zone.toLocal(actor.createdAt), interval, weekStartDay)
    for (const [period, status] of lifecycleStatuses([...actor.periods].sort((a, b) => a - b), created, previous, next)) {
      const i = index.get(period)
      if (i !== undefined) data[status][i]! += status === 'dormant' ? -1 : 1
    }
  }
  const labels = range.buckets.map((bucket) => bucketLabel(bucket, range, weekStartDay))
  const days = range.buckets.map((bucket) => bucketDay(bucket, interval))
  const results = LIFECYCLE_ORDER.map((status): LifecycleSeries => ({
    action: { id: plan.event, name: plan.label, type: 'events', order: 0, math: 'total' },
    label: `${plan.label} - ${status}`, status, data: data[status], count: data[status].reduce((a, b) => a + b, 0), labels, days,
  }))
  return { results, timezone: input.environment.timezone, resolved_date_range: resolvedDateRange }
}
