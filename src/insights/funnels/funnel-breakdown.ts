import { QueryRefused } from '../errors.js'
import type { Needs } from '../properties/compile-filters.js'
import type { RowContext } from '../properties/row-context.js'
import type { Breakdown } from '../schema/filters.js'
import type { FunnelsQuery } from '../schema/insight-queries.js'
import { breakdownText } from '../trends/breakdown-values.js'
import type { OrderType } from './funnel-steps.js'

/**
 * A funnel breakdown value. Funnels write "none" as an empty string and box event and person
 * breakdowns into lists (`["Chrome"]`), as PostHog's funnel runner does; group breakdowns stay
 * single strings.
 */
export type FunnelValue = string | string[]

export type Attribution = 'first_touch' | 'last_touch' | 'all_events' | 'step'

export interface FunnelBreakdown {
  readonly valueOf: (row: RowContext) => FunnelValue
  readonly attribution: Attribution
  /** The step whose event gives the value, with `step` attribution. */
  readonly attributionStep: number
  readonly limit: number
}

/** PostHog's funnel breakdowns beyond the limit are merged into this value (a list for list values). */
export const FUNNEL_OTHER = 'Other'
const DEFAULT_LIMIT = 25

export const funnelValueKey = (value: FunnelValue): string => (typeof value === 'string' ? value : JSON.stringify(value))

/** A value names nothing when all of it is empty: first and last touch look past such events. */
export const isEmptyValue = (value: FunnelValue): boolean => (typeof value === 'string' ? value === '' : value.every((part) => part === ''))

export const otherOf = (sample: FunnelValue): FunnelValue => (typeof sample === 'string' ? FUNNEL_OTHER : [FUNNEL_OTHER])

const itemsOf = (query: FunnelsQuery): { items: Breakdown[]; list: boolean } | null => {
  const filter = query.breakdownFilter
  if (!filter) return null
  if (filter.breakdowns && filter.breakdowns.length > 0) return { items: filter.breakdowns, list: true }
  const { breakdown } = filter
  if (breakdown === undefined || breakdown === null || (Array.isArray(breakdown) && breakdown.length === 0)) return null
  const type = filter.breakdown_type ?? 'event'
  const base = { type, normalize_url: filter.breakdown_normalize_url ?? null, group_type_index: filter.breakdown_group_type_index ?? null, histogram_bin_count: filter.breakdown_histogram_bin_count ?? null }
  const properties = Array.isArray(breakdown) ? breakdown : [breakdown]
  // PostHog boxes event and person breakdowns into lists; a group breakdown keeps one string.
  const list = type === 'event' || type === 'person' || Array.isArray(breakdown)
  return { items: properties.map((property) => ({ ...base, property })), list }
}

/** The breakdown of a funnel and how each actor's value is chosen, or null without one. */
export const compileFunnelBreakdown = (query: FunnelsQuery, steps: number, order: OrderType, needs: Needs): FunnelBreakdown | null => {
  const found = itemsOf(query)
  if (found === null) return null
  const readers = found.items.map((item) => breakdownText(item, needs))
  const valueOf = found.list ? (row: RowContext) => readers.map((read) => read(row) ?? '') : (row: RowContext) => readers[0]!(row) ?? ''
  const attribution = query.funnelsFilter?.breakdownAttributionType ?? 'first_touch'
  const attributionStep = attribution === 'step' ? query.funnelsFilter?.breakdownAttributionValue ?? 0 : 0
  if (attributionStep < 0 || attributionStep >= steps) {
    throw new QueryRefused(`breakdownAttributionValue must name a step between 0 and ${steps - 1}.`, 'invalid_input', 'funnelsFilter.breakdownAttributionValue')
  }
  if (order === 'unordered' && attribution === 'step' && attributionStep !== 0) {
    throw new QueryRefused('Only the first step can be used for breakdown attribution in unordered funnels', 'invalid_input', 'funnelsFilter.breakdownAttributionValue')
  }
  return { valueOf, attribution, attributionStep, limit: query.breakdownFilter?.breakdown_limit ?? DEFAULT_LIMIT }
}
