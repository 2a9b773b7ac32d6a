import { z } from 'zod'
import { PROPERTY_OPERATORS as FLAG_OPERATORS } from '../../decide/operators.js'

/** PostHog's `PropertyOperator` values: those flags know, plus the insight-only `min`, `max` and `is_cleaned_path_exact`. */
export const PROPERTY_OPERATORS = [...FLAG_OPERATORS, 'min', 'max', 'is_cleaned_path_exact'] as const
export type PropertyOperator = (typeof PROPERTY_OPERATORS)[number]

const Scalar = z.union([z.string(), z.number(), z.boolean()])
export const PropertyValue = z.union([Scalar, z.array(Scalar.nullable())]).nullable().optional()

const Operator = z.enum(PROPERTY_OPERATORS, { error: (issue) => `Invalid property operator ${JSON.stringify(issue.input)}.` })

const valueFilter = <T extends string>(type: T) => z.looseObject({
  type: z.literal(type),
  key: z.string(),
  value: PropertyValue,
  operator: Operator.nullable().optional(),
  label: z.string().nullable().optional(),
})

export const EventPropertyFilter = valueFilter('event')
export const PersonPropertyFilter = valueFilter('person')
export const SessionPropertyFilter = valueFilter('session')
export const EventMetadataPropertyFilter = valueFilter('event_metadata')
export const GroupPropertyFilter = valueFilter('group').extend({ group_type_index: z.number().int().min(0).max(4).nullable().optional() })
export const ElementPropertyFilter = valueFilter('element').extend({ key: z.enum(['tag_name', 'text', 'href', 'selector']) })
export const CohortPropertyFilter = z.looseObject({
  type: z.literal('cohort'),
  key: z.literal('id').optional(),
  value: z.union([z.number().int(), z.string()]),
  operator: z.enum(['in', 'not_in']).nullable().optional(),
  cohort_name: z.string().nullable().optional(),
})
export const HogQLPropertyFilter = z.looseObject({ type: z.literal('hogql'), key: z.string(), value: PropertyValue })

/** Filter types of other PostHog products: accepted here, refused by the engine. */
export const OTHER_FILTER_TYPES = [
  'feature', 'recording', 'log_entry', 'data_warehouse', 'data_warehouse_person_property', 'flag',
  'error_tracking_issue', 'log', 'revenue_analytics', 'workflow_variable', 'log_attribute', 'log_resource_attribute',
] as const
export const OtherPropertyFilter = z.looseObject({ type: z.enum(OTHER_FILTER_TYPES), key: z.string().optional() })

export const AnyPropertyFilter = z.discriminatedUnion('type', [
  EventPropertyFilter, PersonPropertyFilter, SessionPropertyFilter, EventMetadataPropertyFilter, GroupPropertyFilter,
  ElementPropertyFilter, CohortPropertyFilter, HogQLPropertyFilter, OtherPropertyFilter,
], { error: (issue) => (issue.code === 'invalid_union' ? 'Unknown property filter type.' : undefined) })
export type AnyPropertyFilter = z.infer<typeof AnyPropertyFilter>

export interface PropertyGroup {
  readonly type: 'AND' | 'OR'
  readonly values: readonly (AnyPropertyFilter | PropertyGroup)[]
}

/** A nested AND/OR group of filters (`PropertyGroupFilterValue`). */
export const PropertyGroup: z.ZodType<PropertyGroup> = z.lazy(() =>
  z.object({
    type: z.enum(['AND', 'OR']),
    values: z.array(z.union([PropertyGroup, AnyPropertyFilter])),
  }),
)

/** `properties` of an insight: a flat list (AND) or a group (`PropertyGroupFilter`). */
export const Properties = z.union([z.array(AnyPropertyFilter), PropertyGroup]).nullable().optional()
export type Properties = z.infer<typeof Properties>

/** A series' own `properties`: always a list. */
export const PropertyList = z.array(AnyPropertyFilter).nullable().optional()
