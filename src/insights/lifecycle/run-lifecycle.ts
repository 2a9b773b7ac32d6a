import type { JsonObject } from '../../eventlog/port.js'
import type { QueryInput, QuerySource } from '../engine/data.js'
import { loadLookups, visitRows } from '../engine/passes.js'
import { settlePeriods } from '../engine/periods.js'
import { noNeeds, type Needs } from '../properties/compile-filters.js'
import type { LifecycleQuery } from '../schema/insight-queries.js'
import { alignLocal, nextBucket, type Interval, type ResolvedRange, type WeekStartDay } from '../time/date-range.js'
import { bucketDay, bucketLabel } from '../time/labels.js'
import type { Zone } from '../time/zone.js'
import { compileSeries, eventsNodeOf, type SeriesPlan } from '../trends/series-plan.js'
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

/** What a lifecycle run settles before it reads events: its series, its range and the events it reads. */
export interface LifecycleRun {
  readonly plan: SeriesPlan
  /** The group type counted (`aggregation_group_type_index`), null for persons. */
  readonly groupIndex: number | null
  readonly interval: Interval
  readonly range: ResolvedRange
  readonly zone: Zone
  readonly weekStartDay: WeekStartDay
  /** Instants of the events read: from one period before the range to the end of the one after it. */
  readonly scan: { readonly from: number; readonly to: number }
  readonly resolvedDateRange: { readonly date_from: string; readonly date_to: string }
  readonly needs: Needs
}

/**
 * Settles a run of a LifecycleQuery at `input.now`. `earliestEvent` is the environment's first
 * event (for `date_from: "all"`), null when the range does not need it.
 */
export const lifecycleRun = (query: LifecycleQuery, input: QueryInput, earliestEvent: number | null): LifecycleRun => {
  const interval = query.interval ?? 'day'
  const needs = noNeeds()
  const groupIndex = query.aggregation_group_type_index ?? null
  const plan = compileSeries({ ...eventsNodeOf(query.series[0]!), math: 'total' }, 0, {
    properties: query.properties, testAccountFilters: query.filterTestAccounts ? input.environment.testAccountFilters : null,
    aggregationGroupIndex: groupIndex, interval, now: input.now, needs,
  })
  const { current: range, context, resolvedDateRange } = settlePeriods(query.dateRange, interval, null, input, earliestEvent)
  const { zone, weekStartDay } = context
  const first = range.buckets[0] ?? alignLocal(range.from, interval, weekStartDay)
  const last = range.buckets[range.buckets.length - 1] ?? first
  const scan = { from: zone.toInstant(alignLocal(first - 1, interval, weekStartDay)), to: zone.toInstant(nextBucket(last, interval)) - 1 }
  return { plan, groupIndex, interval, range, zone, weekStartDay, scan, resolvedDateRange, needs }
}

/**
 * Counts one matching event of an actor in its period; the actor's first event (in the order
 * events are read) creates it, created at `createdAt()`.
 */
export const countLifecycleEvent = (
  run: LifecycleRun, actors: Map<string, LifecycleActor>, key: string, timestamp: number, createdAt: () => number,
): void => {
  let actor = actors.get(key)
  if (!actor) actors.set(key, (actor = { createdAt: createdAt(), periods: new Map() }))
  const period = alignLocal(run.zone.toLocal(timestamp), run.interval, run.weekStartDay)
  actor.periods.set(period, (actor.periods.get(period) ?? 0) + 1)
}

/** An actor's statuses, per period: new, returning, resurrecting, dormant. */
export const lifecycleStatusesOf = (run: LifecycleRun, actor: LifecycleActor): [period: number, status: LifecycleStatus][] => {
  const { interval, weekStartDay, zone } = run
  const created = alignLocal(zone.toLocal(actor.createdAt), interval, weekStartDay)
  const previous = (period: number) => alignLocal(period - 1, interval, weekStartDay)
  const next = (period: number) => nextBucket(period, interval)
  return lifecycleStatuses([...actor.periods.keys()].sort((a, b) => a - b), created, previous, next)
}

/** What a run counts: per status, one number per bucket of the range. */
export type LifecycleCounts = Record<LifecycleStatus, number[]>

export const emptyLifecycleCounts = (run: LifecycleRun): LifecycleCounts => {
  const data: LifecycleCounts = { new: [], returning: [], resurrecting: [], dormant: [] }
  for (const status of LIFECYCLE_ORDER) data[status] = run.range.buckets.map(() => 0)
  return data
}

/** An actor's statuses in the range's buckets: pairs of a bucket's index and a status. */
export const lifecyclePart = (run: LifecycleRun, bucketIndex: ReadonlyMap<number, number>, actor: LifecycleActor): [bucket: number, status: LifecycleStatus][] => {
  const out: [number, LifecycleStatus][] = []
  for (const [period, status] of lifecycleStatusesOf(run, actor)) {
    const i = bucketIndex.get(period)
    if (i !== undefined) out.push([i, status])
  }
  return out
}

/** Adds an actor's part to the counts (`sign` -1 takes it away): dormant actors count negatively. */
export const tallyLifecycle = (data: LifecycleCounts, part: readonly (readonly [number, LifecycleStatus])[], sign: 1 | -1): void => {
  for (const [i, status] of part) data[status][i]! += (status === 'dormant' ? -1 : 1) * sign
}

/** The buckets of a run's range, by their local start. */
export const lifecycleBuckets = (run: LifecycleRun): Map<number, number> => new Map(run.range.buckets.map((bucket, i) => [bucket, i]))

/** The response of a run from its counts. */
export const lifecycleResponse = (run: LifecycleRun, data: LifecycleCounts, timezone: string): LifecycleResponse => {
  const { range, plan } = run
  const labels = range.buckets.map((bucket) => bucketLabel(bucket, range, run.weekStartDay))
  const days = range.buckets.map((bucket) => bucketDay(bucket, range.interval))
  const results = LIFECYCLE_ORDER.map((status): LifecycleSeries => ({
    action: { id: plan.event, name: plan.label, type: 'events', order: 0, math: 'total' },
    label: `${plan.label} - ${status}`, status, data: data[status], count: data[status].reduce((a, b) => a + b, 0), labels, days,
  }))
  return { results, timezone, resolved_date_range: run.resolvedDateRange }
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

/** Reads a run's actors: a person, or a group with `aggregation_group_type_index`, created when the group was. */
const readActors = async (run: LifecycleRun, input: QueryInput, source: QuerySource): Promise<Map<string, LifecycleActor>> => {
  const { plan, groupIndex } = run
  const scan = { ...run.scan, events: plan.event === null ? null : [plan.event] }
  const lookups = await loadLookups(source, input.environment, run.needs, scan)
  const groups = groupIndex === null ? null : await source.groups(groupIndex)
  const actors = new Map<string, LifecycleActor>()
  await visitRows(source, scan, lookups, (row) => {
    if (!plan.test(row)) return
    const key = groupIndex === null ? row.event.personId : row.groupKey(groupIndex)
    if (key === null) return
    countLifecycleEvent(run, actors, key, row.event.timestamp, () => (groupIndex === null ? row.event.personCreatedAt : groups?.get(key)?.createdAt ?? row.event.timestamp))
  })
  return actors
}

/** Reads each actor's active periods from one period before the range to one after it. */
export const lifecycleActivity = async (query: LifecycleQuery, input: QueryInput, source: QuerySource): Promise<LifecycleActivity> => {
  const earliestEvent = query.dateRange?.date_from === 'all' ? await source.earliestTimestamp() : null
  const run = lifecycleRun(query, input, earliestEvent)
  const actors = await readActors(run, input, source)
  return {
    actors, range: run.range, zone: run.zone, label: run.plan.label, event: run.plan.event, resolvedDateRange: run.resolvedDateRange,
    statuses: (actor) => lifecycleStatusesOf(run, actor),
  }
}

/**
 * Runs a LifecycleQuery: each shown period counts actors new, returning, resurrecting and
 * (negatively) dormant in it.
 */
export const runLifecycle = async (query: LifecycleQuery, input: QueryInput, source: QuerySource): Promise<LifecycleResponse> => {
  const earliestEvent = query.dateRange?.date_from === 'all' ? await source.earliestTimestamp() : null
  const run = lifecycleRun(query, input, earliestEvent)
  const actors = await readActors(run, input, source)
  const data = emptyLifecycleCounts(run)
  const buckets = lifecycleBuckets(run)
  for (const actor of actors.values()) tallyLifecycle(data, lifecyclePart(run, buckets, actor), 1)
  return lifecycleResponse(run, data, input.environment.timezone)
}
