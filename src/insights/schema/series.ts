import { z } from 'zod'
import { PropertyList } from './property-filters.js'

export const BASE_MATHS = ['total', 'dau', 'weekly_active', 'monthly_active', 'unique_session', 'first_time_for_user', 'first_matching_event_for_user'] as const
export const PROPERTY_MATHS = ['avg', 'sum', 'min', 'max', 'median', 'p75', 'p90', 'p95', 'p99'] as const
export const ACTOR_MATHS = [
  'avg_count_per_actor', 'min_count_per_actor', 'max_count_per_actor', 'median_count_per_actor',
  'p75_count_per_actor', 'p90_count_per_actor', 'p95_count_per_actor', 'p99_count_per_actor',
] as const
export const MATHS = [...BASE_MATHS, ...PROPERTY_MATHS, ...ACTOR_MATHS, 'unique_group', 'hogql'] as const
export type Math = (typeof MATHS)[number]
export type PropertyMath = (typeof PROPERTY_MATHS)[number]
export type ActorMath = (typeof ACTOR_MATHS)[number]

const MathValue = z.enum(MATHS, { error: (issue) => `Invalid math ${JSON.stringify(issue.input)}.` })
export const MathPropertyType = z.enum(['event_properties', 'person_properties', 'session_properties', 'group_properties', 'data_warehouse_properties', 'data_warehouse_person_properties'])
const GroupIndex = z.number().int().min(0).max(4)

const seriesFields = {
  name: z.string().nullable().optional(),
  custom_name: z.string().nullable().optional(),
  math: MathValue.nullable().optional(),
  math_property: z.string().nullable().optional(),
  math_property_type: MathPropertyType.nullable().optional(),
  math_hogql: z.string().nullable().optional(),
  math_group_type_index: GroupIndex.nullable().optional(),
  math_multiplier: z.number().nullable().optional(),
  properties: PropertyList,
  fixedProperties: PropertyList,
  optionalInFunnel: z.boolean().nullable().optional(),
}

export const EventsNode = z.looseObject({ kind: z.literal('EventsNode'), event: z.string().nullable().optional(), ...seriesFields })
export const ActionsNode = z.looseObject({ kind: z.literal('ActionsNode'), id: z.number().int(), ...seriesFields })
export const DataWarehouseNode = z.looseObject({
  kind: z.literal('DataWarehouseNode'), id: z.string(), table_name: z.string(), timestamp_field: z.string(),
  id_field: z.string().optional(), distinct_id_field: z.string().optional(), ...seriesFields,
})
export type EventsNode = z.infer<typeof EventsNode>
export type ActionsNode = z.infer<typeof ActionsNode>

export const GroupNode = z.looseObject({
  kind: z.literal('GroupNode'), operator: z.enum(['AND', 'OR']),
  nodes: z.array(z.discriminatedUnion('kind', [EventsNode, ActionsNode, DataWarehouseNode])), ...seriesFields,
})

export const SeriesNode = z.discriminatedUnion('kind', [EventsNode, ActionsNode, DataWarehouseNode, GroupNode], {
  error: (issue) => (issue.code === 'invalid_union' ? 'Series kind must be EventsNode, ActionsNode, DataWarehouseNode or GroupNode.' : undefined),
})
export type SeriesNode = z.infer<typeof SeriesNode>

/** Funnel and lifecycle steps: events or actions only. */
export const StepNode = z.discriminatedUnion('kind', [EventsNode, ActionsNode, DataWarehouseNode])
