import { z } from 'zod'
import { DateRange } from './filters.js'
import { InsightSource } from './insight-queries.js'
import { Properties, PropertyList } from './property-filters.js'

/** A breakdown value that picks one data point: a value, or one value per breakdown. */
const BreakdownSelector = z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])

export const EventsQuery = z.looseObject({
  kind: z.literal('EventsQuery'),
  select: z.array(z.string()),
  where: z.array(z.string()).nullable().optional(),
  properties: PropertyList,
  fixedProperties: PropertyList,
  event: z.string().nullable().optional(),
  events: z.array(z.string()).nullable().optional(),
  actionId: z.number().int().nullable().optional(),
  personId: z.string().nullable().optional(),
  filterTestAccounts: z.boolean().nullable().optional(),
  after: z.string().nullable().optional(),
  before: z.string().nullable().optional(),
  orderBy: z.array(z.string()).nullable().optional(),
  limit: z.number().int().min(1).max(50_000).nullable().optional(),
  offset: z.number().int().min(0).nullable().optional(),
})
export type EventsQuery = z.infer<typeof EventsQuery>

export const HogQLQuery = z.looseObject({
  kind: z.literal('HogQLQuery'),
  query: z.string(),
  filters: z.looseObject({ properties: Properties, dateRange: DateRange.nullable().optional(), filterTestAccounts: z.boolean().nullable().optional() }).nullable().optional(),
  values: z.record(z.string(), z.unknown()).nullable().optional(),
  variables: z.record(z.string(), z.unknown()).nullable().optional(),
  name: z.string().nullable().optional(),
})
export type HogQLQuery = z.infer<typeof HogQLQuery>

export const InsightActorsQuery = z.looseObject({
  kind: z.literal('InsightActorsQuery'),
  source: InsightSource,
  day: z.union([z.string(), z.number()]).nullable().optional(),
  status: z.string().nullable().optional(),
  interval: z.number().int().nullable().optional(),
  series: z.number().int().min(0).nullable().optional(),
  breakdown: BreakdownSelector.nullable().optional(),
  compare: z.enum(['current', 'previous']).nullable().optional(),
  includeRecordings: z.boolean().nullable().optional(),
})
export type InsightActorsQuery = z.infer<typeof InsightActorsQuery>

export const FunnelsActorsQuery = z.looseObject({
  kind: z.literal('FunnelsActorsQuery'),
  source: InsightSource,
  /** 1-based: n for the actors who reached step n, -n for those who dropped off at step n. */
  funnelStep: z.number().int().nullable().optional(),
  funnelStepBreakdown: BreakdownSelector.nullable().optional(),
  funnelTrendsDropOff: z.boolean().nullable().optional(),
  funnelTrendsEntrancePeriodStart: z.string().nullable().optional(),
  includeRecordings: z.boolean().nullable().optional(),
})
export type FunnelsActorsQuery = z.infer<typeof FunnelsActorsQuery>

export const StickinessActorsQuery = z.looseObject({
  kind: z.literal('StickinessActorsQuery'),
  source: InsightSource,
  day: z.union([z.string(), z.number()]).nullable().optional(),
  series: z.number().int().min(0).nullable().optional(),
  compare: z.enum(['current', 'previous']).nullable().optional(),
})
export type StickinessActorsQuery = z.infer<typeof StickinessActorsQuery>

export const ActorsQuery = z.looseObject({
  kind: z.literal('ActorsQuery'),
  source: z.discriminatedUnion('kind', [InsightActorsQuery, FunnelsActorsQuery, StickinessActorsQuery, HogQLQuery]).nullable().optional(),
  select: z.array(z.string()).nullable().optional(),
  search: z.string().nullable().optional(),
  properties: Properties,
  fixedProperties: PropertyList,
  orderBy: z.array(z.string()).nullable().optional(),
  limit: z.number().int().min(1).max(50_000).nullable().optional(),
  offset: z.number().int().min(0).nullable().optional(),
})
export type ActorsQuery = z.infer<typeof ActorsQuery>
