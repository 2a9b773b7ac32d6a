import { QueryRefused } from '../errors.js'
import { compileProperties, type Needs, type RowTest } from '../properties/compile-filters.js'
import type { RowContext } from '../properties/row-context.js'
import { propertyText } from '../properties/value-tests.js'
import { toF64 } from '../../decide/values.js'
import type { Interval } from '../time/date-range.js'
import type { AnyPropertyFilter, PropertyGroup } from '../schema/property-filters.js'
import { ACTOR_MATHS, PROPERTY_MATHS, type EventsNode, type Math, type SeriesNode } from '../schema/series.js'
import { CountCell, DistinctCell, KeyedNumbersCell, NumbersCell, PerActorCell, type Cell } from './cells.js'
import type { Statistic } from './statistics.js'
import { ownValue } from '../../kernel/own-value.js'

/** How a series turns matching events into one number per bucket. */
export type Measure =
  | { readonly kind: 'count' }
  | { readonly kind: 'distinct'; readonly keyOf: (row: RowContext) => string | null }
  /** Distinct actors over the `days` ending with each bucket (weekly and monthly active). */
  | { readonly kind: 'active'; readonly keyOf: (row: RowContext) => string | null; readonly days: 7 | 30 }
  /** Each actor once, at their first event (`matching`: the first that passes the filters). */
  | { readonly kind: 'first'; readonly keyOf: (row: RowContext) => string | null; readonly matching: boolean }
  | { readonly kind: 'numbers'; readonly valueOf: (row: RowContext) => number | null; readonly statistic: Statistic; readonly sessionKey: ((row: RowContext) => string | null) | null }
  | { readonly kind: 'per_actor'; readonly keyOf: (row: RowContext) => string | null; readonly statistic: Statistic }

export interface SeriesPlan {
  readonly order: number
  readonly node: EventsNode
  /** The event name, or null for all events. */
  readonly event: string | null
  readonly label: string
  readonly math: Math
  /** Series, query and test-account filters together. */
  readonly test: RowTest
  readonly measure: Measure
}

/** What every series of a query shares. */
export interface SeriesContext {
  readonly properties: readonly AnyPropertyFilter[] | PropertyGroup | null | undefined
  readonly testAccountFilters: readonly AnyPropertyFilter[] | null
  readonly aggregationGroupIndex: number | null
  readonly interval: Interval
  readonly now: number
  readonly needs: Needs
}

const numberOf = (value: unknown): number | null => {
  const text = propertyText(value)
  if (text === null) return null
  const n = toF64(text)
  return n === null || !Number.isFinite(n) ? null : n
}

/** A group actor: the event's group key, read from its properties. */
const groupActor = (index: number, needs: Needs) => {
  needs.eventProperties = true
  return (row: RowContext): string | null => row.groupKey(index)
}

const actorOf = (node: EventsNode, math: Math, context: SeriesContext): ((row: RowContext) => string | null) => {
  const groupMath = math === 'dau' || math === 'unique_group' || math === 'weekly_active' || math === 'monthly_active'
  if (groupMath && node.math_group_type_index !== undefined && node.math_group_type_index !== null) return groupActor(node.math_group_type_index, context.needs)
  if (math === 'unique_group') throw new QueryRefused('The unique_group math needs math_group_type_index.', 'invalid_input', 'math_group_type_index')
  if (context.aggregationGroupIndex !== null) return groupActor(context.aggregationGroupIndex, context.needs)
  return (row) => row.event.personId
}

const sessionOf = (row: RowContext): string | null => {
  const id = row.event.properties['$session_id']
  return typeof id === 'string' && id !== '' ? id : null
}

const propertyMeasure = (node: EventsNode, statistic: Statistic, context: SeriesContext): Measure => {
  const key = node.math_property
  if (key === undefined || key === null || key === '') throw new QueryRefused(`The ${statistic} math needs math_property.`, 'invalid_input', 'math_property')
  if (key === '$session_duration' || node.math_property_type === 'session_properties') {
    context.needs.sessions = true
    return { kind: 'numbers', statistic, valueOf: (row) => numberOf(row.session ? ownValue(row.session, key) : undefined), sessionKey: sessionOf }
  }
  switch (node.math_property_type ?? 'event_properties') {
    case 'event_properties':
      context.needs.eventProperties = true
      return { kind: 'numbers', statistic, valueOf: (row) => numberOf(ownValue(row.event.properties, key)), sessionKey: null }
    case 'person_properties': return { kind: 'numbers', statistic, valueOf: (row) => numberOf(ownValue(row.event.personProperties, key)), sessionKey: null }
    case 'group_properties': {
      const index = node.math_group_type_index
      if (index === undefined || index === null) throw new QueryRefused('Group property math needs math_group_type_index.', 'invalid_input', 'math_group_type_index')
      context.needs.groupTypes.add(index)
      return { kind: 'numbers', statistic, valueOf: (row) => numberOf(ownValue(row.groupProperties(index) ?? {}, key)), sessionKey: null }
    }
    default: throw new QueryRefused(`Math on ${node.math_property_type} is not supported.`, 'unsupported_query', 'math_property_type')
  }
}

const COARSER: Readonly<Record<Interval, number>> = { minute: 0, hour: 1, day: 2, week: 3, month: 4 }

const measureOf = (node: EventsNode, math: Math, context: SeriesContext): Measure => {
  if ((PROPERTY_MATHS as readonly string[]).includes(math)) return propertyMeasure(node, math as Statistic, context)
  if ((ACTOR_MATHS as readonly string[]).includes(math)) {
    return { kind: 'per_actor', statistic: math.replace('_count_per_actor', '') as Statistic, keyOf: actorOf(node, math, context) }
  }
  switch (math) {
    case 'total': return { kind: 'count' }
    case 'dau': case 'unique_group': return { kind: 'distinct', keyOf: actorOf(node, math, context) }
    case 'unique_session':
      context.needs.eventProperties = true
      return { kind: 'distinct', keyOf: sessionOf }
    case 'weekly_active':
    case 'monthly_active': {
      // PostHog answers WAU by week (or longer) and MAU by month as plain distinct actors per bucket.
      const coarse = COARSER[context.interval] >= (math === 'weekly_active' ? COARSER.week : COARSER.month)
      const keyOf = actorOf(node, math, context)
      return coarse ? { kind: 'distinct', keyOf } : { kind: 'active', keyOf, days: math === 'weekly_active' ? 7 : 30 }
    }
    case 'first_time_for_user':
    case 'first_matching_event_for_user': return { kind: 'first', keyOf: actorOf(node, math, context), matching: math === 'first_matching_event_for_user' }
    case 'hogql': throw new QueryRefused('HogQL math is not supported: Hedgelog does not run HogQL.', 'unsupported_query', 'math_hogql')
    default: throw new QueryRefused(`Invalid math ${JSON.stringify(math)}.`)
  }
}

/** A fresh cell for a measure (first-time and active measures count distinct keys). */
export const newCell = (measure: Measure): Cell => {
  switch (measure.kind) {
    case 'count': return new CountCell()
    case 'distinct': case 'active': case 'first': return new DistinctCell()
    case 'numbers': return measure.sessionKey ? new KeyedNumbersCell(measure.statistic) : new NumbersCell(measure.statistic)
    case 'per_actor': return new PerActorCell(measure.statistic)
  }
}

/** Refuses series kinds Hedgelog cannot run yet; returns the events node. */
export const eventsNodeOf = (node: SeriesNode): EventsNode => {
  switch (node.kind) {
    case 'EventsNode': return node
    case 'ActionsNode': throw new QueryRefused('Action series are not supported yet: Hedgelog has no actions.', 'unsupported_query', 'series')
    case 'DataWarehouseNode': throw new QueryRefused('Data warehouse series are not supported: Hedgelog has no data warehouse.', 'unsupported_query', 'series')
    case 'GroupNode': throw new QueryRefused('Grouped series (GroupNode) are not supported yet.', 'unsupported_query', 'series')
  }
}

/** Compiles one series of a trends or stickiness query. */
export const compileSeries = (series: SeriesNode, order: number, context: SeriesContext): SeriesPlan => {
  const node = eventsNodeOf(series)
  const math = node.math ?? 'total'
  const tests = [
    compileProperties(node.properties, context.now, context.needs),
    compileProperties(node.fixedProperties, context.now, context.needs),
    compileProperties(context.properties, context.now, context.needs),
    compileProperties(context.testAccountFilters, context.now, context.needs),
  ]
  const event = node.event ?? null
  return {
    order, node, event, label: event ?? 'All events', math,
    test: (row) => tests.every((test) => test(row)),
    measure: measureOf(node, math, context),
  }
}
