import { z } from 'zod'
import {
  BreakdownFilter, CompareFilter, DateRange, Interval, LifecycleFilter, Modifiers, StickinessFilter, TrendsFilter,
} from './filters.js'
import { Properties, PropertyList } from './property-filters.js'
import { SeriesNode, StepNode } from './series.js'

/** Fields every insight query has (`InsightsQueryBase`). */
const insightBase = {
  dateRange: DateRange.nullable().optional(),
  filterTestAccounts: z.boolean().nullable().optional(),
  properties: Properties,
  aggregation_group_type_index: z.number().int().min(0).max(4).nullable().optional(),
  samplingFactor: z.number().positive().max(1).nullable().optional(),
  dataColorTheme: z.number().nullable().optional(),
  modifiers: Modifiers.nullable().optional(),
  tags: z.unknown().optional(),
}

/** Fields trends and stickiness share: series of events, an interval and a compared period. */
const seriesInsight = {
  series: z.array(SeriesNode),
  interval: Interval.nullable().optional(),
  compareFilter: CompareFilter.nullable().optional(),
  ...insightBase,
}

export const TrendsQuery = z.looseObject({
  kind: z.literal('TrendsQuery'),
  breakdownFilter: BreakdownFilter.nullable().optional(),
  trendsFilter: TrendsFilter.nullable().optional(),
  ...seriesInsight,
})
export type TrendsQuery = z.infer<typeof TrendsQuery>

export const StickinessQuery = z.looseObject({
  kind: z.literal('StickinessQuery'),
  intervalCount: z.number().int().min(1).nullable().optional(),
  stickinessFilter: StickinessFilter.nullable().optional(),
  ...seriesInsight,
})
export type StickinessQuery = z.infer<typeof StickinessQuery>

export const LifecycleQuery = z.looseObject({
  kind: z.literal('LifecycleQuery'),
  series: z.array(StepNode).length(1, { error: 'A lifecycle query has exactly one series.' }),
  interval: Interval.nullable().optional(),
  lifecycleFilter: LifecycleFilter.nullable().optional(),
  ...insightBase,
})
export type LifecycleQuery = z.infer<typeof LifecycleQuery>

const FunnelExclusion = z.looseObject({
  kind: z.enum(['EventsNode', 'ActionsNode']),
  event: z.string().nullable().optional(),
  id: z.number().int().nullable().optional(),
  properties: PropertyList,
  funnelFromStep: z.number().int().min(0),
  funnelToStep: z.number().int().min(0),
})
export type FunnelExclusion = z.infer<typeof FunnelExclusion>
const WindowUnit = z.enum(['second', 'minute', 'hour', 'day', 'week', 'month'])

/** Display-only keys (layout, funnelStepReference, hiddenLegendBreakdowns, resultCustomizations…) pass through unread. */
export const FunnelsFilter = z.looseObject({
  funnelOrderType: z.enum(['ordered', 'strict', 'unordered']).nullable().optional(),
  funnelVizType: z.enum(['steps', 'time_to_convert', 'trends']).nullable().optional(),
  funnelWindowInterval: z.number().int().min(1).nullable().optional(),
  funnelWindowIntervalUnit: WindowUnit.nullable().optional(),
  exclusions: z.array(FunnelExclusion).nullable().optional(),
  breakdownAttributionType: z.enum(['first_touch', 'last_touch', 'all_events', 'step']).nullable().optional(),
  breakdownAttributionValue: z.number().int().nullable().optional(),
  funnelStepReference: z.enum(['total', 'previous']).nullable().optional(),
  binCount: z.number().int().min(1).nullable().optional(),
  funnelFromStep: z.number().int().min(0).nullable().optional(),
  funnelToStep: z.number().int().min(0).nullable().optional(),
  funnelAggregateByHogQL: z.string().nullable().optional(),
  layout: z.enum(['vertical', 'horizontal']).nullable().optional(),
})

export const FunnelsQuery = z.looseObject({
  kind: z.literal('FunnelsQuery'),
  series: z.array(StepNode).min(2, { error: 'A funnel needs at least two steps.' }),
  interval: Interval.nullable().optional(),
  breakdownFilter: BreakdownFilter.nullable().optional(),
  funnelsFilter: FunnelsFilter.nullable().optional(),
  ...insightBase,
})
export type FunnelsQuery = z.infer<typeof FunnelsQuery>

const RetentionEntity = z.looseObject({
  id: z.union([z.string(), z.number()]).nullable().optional(),
  type: z.enum(['events', 'actions']).nullable().optional(),
  name: z.string().nullable().optional(),
  properties: PropertyList,
})
export type RetentionEntity = z.infer<typeof RetentionEntity>

export const RetentionFilter = z.looseObject({
  period: z.enum(['Hour', 'Day', 'Week', 'Month']).nullable().optional(),
  totalIntervals: z.number().int().min(1).max(1000).nullable().optional(),
  targetEntity: RetentionEntity.nullable().optional(),
  returningEntity: RetentionEntity.nullable().optional(),
  retentionType: z.enum(['retention_recurring', 'retention_first_time', 'retention_first_ever_occurrence']).nullable().optional(),
  cumulative: z.boolean().nullable().optional(),
  minimumOccurrences: z.number().int().min(1).nullable().optional(),
  retentionReference: z.enum(['total', 'previous']).nullable().optional(),
})

export const RetentionQuery = z.looseObject({
  kind: z.literal('RetentionQuery'),
  retentionFilter: RetentionFilter,
  breakdownFilter: BreakdownFilter.nullable().optional(),
  ...insightBase,
})
export type RetentionQuery = z.infer<typeof RetentionQuery>

/** The insight queries an actors query can drill into. */
export const InsightSource = z.discriminatedUnion('kind', [TrendsQuery, FunnelsQuery, RetentionQuery, StickinessQuery, LifecycleQuery])
