import { z } from 'zod'
import { compileFilterDate } from './dates.js'
import { DATE_OPERATORS, PROPERTY_OPERATORS, STRING_VALUED_OPERATORS } from './operators.js'
import { pythonText } from '../kernel/python-text.js'
import { patternProblem } from './regex.js'

const FLAG_KEY = /^[a-zA-Z0-9_-]+$/
export const INVALID_FLAG_KEY_MESSAGE = 'Only letters, numbers, hyphens (-) & underscores (_) are allowed.'

/** PostHog's flag key format: letters, digits, `-` and `_`, at least one character. */
export const isValidFlagKey = (key: unknown): key is string => typeof key === 'string' && FLAG_KEY.test(key)

/** Largest list a property filter value may hold. */
export const MAX_PROPERTY_VALUES = 1000

const percentage = (what: string) =>
  z.number().min(0, `${what} must be between 0 and 100.`).max(100, `${what} must be between 0 and 100.`)

export const propertyFilterSchema = z.looseObject({
  key: z.string(),
  value: z.json().optional(),
  operator: z.enum(PROPERTY_OPERATORS).nullable().optional(),
  type: z.string().optional(),
  group_type_index: z.number().int().nullable().optional(),
  negation: z.boolean().optional(),
})

export const conditionGroupSchema = z.looseObject({
  properties: z.array(propertyFilterSchema).nullable().optional(),
  rollout_percentage: percentage('Rollout percentage').nullable().optional(),
  variant: z.string().nullable().optional(),
})

const variantSchema = z.looseObject({
  key: z.string().min(1),
  name: z.string().nullable().optional(),
  rollout_percentage: percentage('Variant rollout percentage'),
})

type Filters = z.infer<typeof filtersShape>
type Filter = z.infer<typeof propertyFilterSchema>

const filtersShape = z.looseObject({
  groups: z.array(conditionGroupSchema).default([]),
  multivariate: z.looseObject({ variants: z.array(variantSchema) }).nullable().optional(),
  payloads: z.unknown().optional(),
  aggregation_group_type_index: z.number().int().min(0).nullable().optional(),
  super_groups: z.array(conditionGroupSchema).nullable().optional(),
  holdout_groups: z.array(conditionGroupSchema).nullable().optional(),
})

/** Python's Property defaults a missing type to "event", which flags refuse. */
const typeOf = (filter: Filter): string => filter.type || 'event'

const allFilters = (filters: Filters): Filter[] => filters.groups.flatMap((group) => group.properties ?? [])

const targetingProblem = (filters: Filters): string | null => {
  const index = filters.aggregation_group_type_index ?? null
  const properties = allFilters(filters)
  if (index === null) {
    if (!properties.every((p) => ['person', 'cohort', 'flag'].includes(typeOf(p)))) return 'Filters are not valid (can only use person, cohort, and flag properties)'
    if (!properties.every((p) => typeOf(p) !== 'flag' || p.operator === 'flag_evaluates_to')) return "Flag properties must use the 'flag_evaluates_to' operator"
    return null
  }
  if (!properties.every((p) => typeOf(p) === 'group' && p.group_type_index === index)) return 'Filters are not valid (can only use group properties)'
  return null
}

const variantProblem = (filters: Filters): string | null => {
  const variants = filters.multivariate?.variants ?? []
  if (variants.length > 0 && variants.reduce((sum, v) => sum + v.rollout_percentage, 0) !== 100) {
    return 'Invalid variant definitions: Variant rollout percentages must sum to 100.'
  }
  if (new Set(variants.map((v) => v.key)).size !== variants.length) return 'Invalid variant definitions: Variant keys must be unique.'
  return null
}

const propertyProblem = (filter: Filter): string | null => {
  const operator = filter.operator ?? 'exact'
  if (Array.isArray(filter.value) && filter.value.length > MAX_PROPERTY_VALUES) {
    return `Property group expressions of type ${filter.key} cannot contain more than ${MAX_PROPERTY_VALUES} values.`
  }
  if (DATE_OPERATORS.has(operator) && compileFilterDate(filter.value) === null) return `Invalid date value: ${pythonText(filter.value)}`
  if (STRING_VALUED_OPERATORS.has(operator) && typeof filter.value !== 'string') return `Invalid value for operator ${operator}: ${pythonText(filter.value)}`
  if (operator === 'regex' || operator === 'not_regex') {
    // Only patterns the linear-time engine accepts are stored, so evaluation can never backtrack.
    const problem = patternProblem(filter.value as string)
    if (problem) return `Invalid regex pattern for ${filter.key}: ${problem}`
  }
  if ((operator === 'in' || operator === 'not_in') && typeOf(filter) !== 'cohort') {
    return `The '${operator}' operator is only valid for cohort properties, not '${typeOf(filter)}' properties.`
  }
  return null
}

const conditionProblem = (filters: Filters): string | null => {
  const variants = new Set((filters.multivariate?.variants ?? []).map((v) => v.key))
  for (const group of filters.groups) {
    if (group.variant && !variants.has(group.variant)) return 'Filters are not valid (variant override does not exist)'
    for (const filter of group.properties ?? []) {
      const problem = propertyProblem(filter)
      if (problem) return problem
    }
  }
  return null
}

const isJsonText = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

const payloadProblem = (filters: Filters): string | null => {
  const payloads = filters.payloads ?? {}
  if (typeof payloads !== 'object' || Array.isArray(payloads)) return 'Payloads must be passed as a dictionary'
  const entries = Object.entries(payloads)
  if (entries.some(([, value]) => typeof value === 'string' && !isJsonText(value))) return 'Payload value is not valid JSON'
  if (filters.multivariate) {
    const variants = new Set(filters.multivariate.variants.map((v) => v.key))
    if (!entries.every(([key]) => variants.has(key))) return 'Payload keys must match a variant key for multivariate flags'
  } else if (entries.some(([key]) => key !== 'true')) {
    return "Payload keys must be 'true' for boolean flags"
  }
  return null
}

/** Object and array payloads are stored as JSON strings, as PostHog's UI sends them. */
const normalisePayloads = (filters: Filters): Filters => {
  if (!filters.payloads || typeof filters.payloads !== 'object') return filters
  const payloads = Object.fromEntries(
    Object.entries(filters.payloads as Record<string, unknown>).map(([key, value]) => [key, value !== null && typeof value === 'object' ? JSON.stringify(value) : value]),
  )
  return { ...filters, payloads }
}

const NO_GROUPS = 'Feature flags must have at least one condition set (group).'

const filtersSchema = (creating: boolean) =>
  filtersShape
    .superRefine((filters, context) => {
      const problem = (creating && filters.groups.length === 0 ? NO_GROUPS : null) ??
        targetingProblem(filters) ?? variantProblem(filters) ?? conditionProblem(filters) ?? payloadProblem(filters)
      if (problem) context.addIssue({ code: 'custom', message: problem, path: [] })
    })
    .transform(normalisePayloads)

/**
 * A flag's `filters` as the management API accepts them, checked in PostHog's order with its
 * messages. Checks that need storage (cohort existence, dependency ids and cycles) are left to
 * the caller. Issues carry an empty path, so nested under `filters` they report `attr: "filters"`.
 */
export const flagFiltersSchema = filtersSchema(false)

/** On creation PostHog also requires at least one condition set, checked first. */
export const flagFiltersCreateSchema = filtersSchema(true)

export type FlagFiltersInput = z.input<typeof flagFiltersSchema>
export type FlagFiltersOutput = z.output<typeof flagFiltersSchema>
