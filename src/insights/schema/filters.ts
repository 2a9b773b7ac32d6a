import { z } from 'zod'
import { parseDateInput } from '../time/date-input.js'
import { isKnownZone } from '../time/zone.js'

const dateText = (allowAll: boolean) => z.string().refine(
  (text) => (allowAll && text === 'all') || parseDateInput(text) !== null,
  { error: (issue) => `Invalid date ${JSON.stringify(issue.input)}: use an ISO date or datetime, or a relative date such as -7d, -24h, mStart${allowAll ? ' or all' : ''}.` },
)

export const DateRange = z.looseObject({
  date_from: dateText(true).nullable().optional(),
  date_to: dateText(false).nullable().optional(),
  explicitDate: z.boolean().nullable().optional(),
})
export type DateRange = z.infer<typeof DateRange>

export const Interval = z.enum(['minute', 'hour', 'day', 'week', 'month'], { error: (issue) => `Invalid interval ${JSON.stringify(issue.input)}.` })

export const BREAKDOWN_TYPES = [
  'event', 'person', 'session', 'group', 'cohort', 'hogql', 'event_metadata', 'data_warehouse',
  'data_warehouse_person_property', 'revenue_analytics',
] as const
const BreakdownType = z.enum(BREAKDOWN_TYPES, { error: (issue) => `Invalid breakdown type ${JSON.stringify(issue.input)}.` })

export const Breakdown = z.looseObject({
  type: BreakdownType.nullable().optional(),
  property: z.union([z.string(), z.number()]),
  normalize_url: z.boolean().nullable().optional(),
  group_type_index: z.number().int().min(0).max(4).nullable().optional(),
  histogram_bin_count: z.number().int().min(1).nullable().optional(),
})
export type Breakdown = z.infer<typeof Breakdown>

export const BreakdownFilter = z.looseObject({
  breakdown_type: BreakdownType.nullable().optional(),
  breakdown: z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))]).nullable().optional(),
  breakdown_limit: z.number().int().min(1).nullable().optional(),
  breakdowns: z.array(Breakdown).max(3, { error: 'At most 3 breakdowns are allowed.' }).nullable().optional(),
  breakdown_group_type_index: z.number().int().min(0).max(4).nullable().optional(),
  breakdown_histogram_bin_count: z.number().int().min(1).nullable().optional(),
  breakdown_normalize_url: z.boolean().nullable().optional(),
  breakdown_hide_other_aggregation: z.boolean().nullable().optional(),
})
export type BreakdownFilter = z.infer<typeof BreakdownFilter>

export const CompareFilter = z.looseObject({
  compare: z.boolean().nullable().optional(),
  compare_to: z.string().refine((text) => parseDateInput(text)?.kind === 'relative', { error: (issue) => `Invalid compare_to ${JSON.stringify(issue.input)}: use a relative date such as -1w.` }).nullable().optional(),
})
export type CompareFilter = z.infer<typeof CompareFilter>

export const DISPLAYS = [
  'ActionsLineGraph', 'ActionsBar', 'ActionsUnstackedBar', 'ActionsStackedBar', 'ActionsAreaGraph', 'ActionsLineGraphCumulative',
  'BoldNumber', 'ActionsPie', 'ActionsBarValue', 'ActionsTable', 'WorldMap', 'CalendarHeatmap', 'BoxPlot', 'SlopeGraph', 'Progress',
] as const
export type Display = (typeof DISPLAYS)[number]
const DisplayValue = z.enum(DISPLAYS, { error: (issue) => `Invalid display ${JSON.stringify(issue.input)}.` })

export const FormulaNode = z.looseObject({ formula: z.string(), custom_name: z.string().nullable().optional() })

/** Display-only keys (showLegend, aggregationAxisFormat, decimalPlaces, goalLines…) pass through unread. */
export const TrendsFilter = z.looseObject({
  display: DisplayValue.nullable().optional(),
  formula: z.string().nullable().optional(),
  formulas: z.array(z.string()).nullable().optional(),
  formulaNodes: z.array(FormulaNode).nullable().optional(),
  smoothingIntervals: z.number().int().min(1).nullable().optional(),
  aggregationAxisFormat: z.enum(['numeric', 'duration', 'duration_ms', 'percentage', 'percentage_scaled', 'currency', 'short']).nullable().optional(),
})
export type TrendsFilter = z.infer<typeof TrendsFilter>

export const StickinessFilter = z.looseObject({
  display: DisplayValue.nullable().optional(),
  computedAs: z.enum(['non_cumulative', 'cumulative']).nullable().optional(),
  stickinessCriteria: z.object({ operator: z.enum(['gte', 'lte', 'exact']), value: z.number().int() }).nullable().optional(),
})
export type StickinessFilter = z.infer<typeof StickinessFilter>

export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const
export const LifecycleFilter = z.looseObject({ toggledLifecycles: z.array(z.enum(LIFECYCLE_STATUSES)).nullable().optional() })

/** `modifiers`: read for the persons-on-events mode by the adapter; the rest pass through. */
export const Modifiers = z.looseObject({ personsOnEventsMode: z.string().nullable().optional() })

/** An environment's time zone, as stored; refused when the runtime does not know it. */
export const TimeZoneName = z.string().refine(isKnownZone, { error: (issue) => `Unknown time zone ${JSON.stringify(issue.input)}.` })
