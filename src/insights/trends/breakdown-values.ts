import { QueryRefused } from '../errors.js'
import type { Needs } from '../properties/compile-filters.js'
import type { RowContext } from '../properties/row-context.js'
import { propertyText } from '../properties/value-tests.js'
import type { Breakdown, BreakdownFilter } from '../schema/filters.js'
import { ownValue } from '../../kernel/own-value.js'

/** PostHog's sentinel for a missing or empty breakdown property. */
export const NULL_VALUE = '$$_posthog_breakdown_null_$$'
/** PostHog's sentinel for the values beyond the breakdown limit, merged into one series. */
export const OTHER_VALUE = '$$_posthog_breakdown_other_$$'

export type BreakdownValue = string | string[]

export interface BreakdownPlan {
  /** True with `breakdowns` (values are lists), false with a single `breakdown`. */
  readonly multiple: boolean
  readonly valueOf: (row: RowContext) => BreakdownValue
  readonly limit: number
  readonly hideOther: boolean
}

const DEFAULT_LIMIT = 25
const WORLD_MAP_LIMIT = 300

/** A URL without its query, fragment and trailing slash (`breakdown_normalize_url`). */
const normalizeUrl = (text: string): string => {
  const bare = text.replace(/[?#].*$/, '')
  return bare.length > 1 ? bare.replace(/\/+$/, '') || '/' : bare
}

/**
 * Reads one breakdown property of a row as text: null when the property is missing, null or
 * empty (each insight writes that as its own "none" value). URLs lose their query and trailing
 * slash with `normalize_url`.
 */
export const breakdownText = (item: Breakdown, needs: Needs): ((row: RowContext) => string | null) => {
  const type = item.type ?? 'event'
  if (item.histogram_bin_count !== undefined && item.histogram_bin_count !== null) {
    throw new QueryRefused('Histogram breakdowns are not supported yet.', 'unsupported_query', 'breakdown_histogram_bin_count')
  }
  const key = String(item.property)
  let read: (row: RowContext) => unknown
  switch (type) {
    case 'event':
      needs.eventProperties = true
      read = (row) => ownValue(row.event.properties, key)
      break
    case 'person': read = (row) => ownValue(row.event.personProperties, key); break
    case 'session':
      needs.sessions = true
      read = (row) => (row.session ? ownValue(row.session, key) : undefined)
      break
    case 'group': {
      const index = item.group_type_index
      if (index === undefined || index === null) throw new QueryRefused('A group breakdown needs a group type index.', 'invalid_input', 'breakdown_group_type_index')
      needs.groupTypes.add(index)
      read = (row) => {
        const properties = row.groupProperties(index)
        return properties ? ownValue(properties, key) : undefined
      }
      break
    }
    case 'cohort': throw new QueryRefused('Cohort breakdowns are not supported yet: Hedgelog has no cohorts.', 'unsupported_query', 'breakdown_type')
    case 'hogql': throw new QueryRefused('HogQL breakdowns are not supported: Hedgelog does not run HogQL.', 'unsupported_query', 'breakdown_type')
    default: throw new QueryRefused(`Breakdowns of type ${type} are not supported.`, 'unsupported_query', 'breakdown_type')
  }
  const normalize = item.normalize_url === true
  return (row) => {
    const text = propertyText(read(row))
    if (text === null || text === '') return null
    return normalize ? normalizeUrl(text) : text
  }
}

const reader = (item: Breakdown, needs: Needs): ((row: RowContext) => string) => {
  const text = breakdownText(item, needs)
  return (row) => text(row) ?? NULL_VALUE
}

const singleBreakdown = (filter: BreakdownFilter): Breakdown | null => {
  const { breakdown } = filter
  if (breakdown === undefined || breakdown === null) return null
  const property = Array.isArray(breakdown) ? (breakdown.length === 1 ? breakdown[0]! : null) : breakdown
  if (property === null) throw new QueryRefused('A breakdown on several properties is written as `breakdowns`.', 'invalid_input', 'breakdown')
  return {
    type: filter.breakdown_type ?? 'event', property, normalize_url: filter.breakdown_normalize_url ?? null,
    group_type_index: filter.breakdown_group_type_index ?? null, histogram_bin_count: filter.breakdown_histogram_bin_count ?? null,
  }
}

/** The breakdown a trends or stickiness query asks for, or null when it has none. */
export const compileBreakdown = (filter: BreakdownFilter | null | undefined, worldMap: boolean, needs: Needs): BreakdownPlan | null => {
  if (!filter) return null
  const limit = filter.breakdown_limit ?? (worldMap ? WORLD_MAP_LIMIT : DEFAULT_LIMIT)
  const hideOther = filter.breakdown_hide_other_aggregation === true
  if (filter.breakdowns && filter.breakdowns.length > 0) {
    const readers = filter.breakdowns.map((item) => reader(item, needs))
    return { multiple: true, valueOf: (row) => readers.map((read) => read(row)), limit, hideOther }
  }
  const single = singleBreakdown(filter)
  if (single === null) return null
  const read = reader(single, needs)
  return { multiple: false, valueOf: read, limit, hideOther }
}

export const keyOf = (value: BreakdownValue): string => (typeof value === 'string' ? value : JSON.stringify(value))

const isNull = (value: BreakdownValue): boolean =>
  typeof value === 'string' ? value === NULL_VALUE : value.every((part) => part === NULL_VALUE)

const compareValues = (a: BreakdownValue, b: BreakdownValue): number => {
  const x = keyOf(a)
  const y = keyOf(b)
  return x < y ? -1 : x > y ? 1 : 0
}

export interface Ranked<T> {
  readonly value: BreakdownValue
  readonly total: number
  readonly item: T
}

/**
 * Splits breakdown values into the kept ones (the `limit` largest totals; on equal totals an
 * ordinary value before the null one, then by value) and the rest, and orders the kept ones as
 * PostHog lists series: ordinary values by total then value, then the null value.
 */
export const rankValues = <T>(values: readonly Ranked<T>[], limit: number): { kept: Ranked<T>[]; rest: Ranked<T>[] } => {
  const ranked = [...values].sort((a, b) =>
    b.total - a.total || Number(isNull(a.value)) - Number(isNull(b.value)) || compareValues(a.value, b.value))
  const kept = ranked.slice(0, limit)
  const rest = ranked.slice(limit)
  kept.sort((a, b) => Number(isNull(a.value)) - Number(isNull(b.value)) || b.total - a.total || compareValues(a.value, b.value))
  return { kept, rest }
}

/** The value standing for "the rest": the Other sentinel, once per breakdown with `breakdowns`. */
export const otherValue = (plan: BreakdownPlan, sample: BreakdownValue): BreakdownValue =>
  plan.multiple && Array.isArray(sample) ? sample.map(() => OTHER_VALUE) : OTHER_VALUE

export const isOther = (value: BreakdownValue): boolean =>
  typeof value === 'string' ? value === OTHER_VALUE : value.length > 0 && value.every((part) => part === OTHER_VALUE)
