/**
 * Flag definitions exactly as PostHog's local-evaluation payload carries them
 * (`GET /api/feature_flag/local_evaluation` → `{flags, group_type_mapping, cohorts}`).
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

export interface PropertyFilter {
  readonly key: string
  readonly value?: JsonValue
  /** Defaults to `exact`. */
  readonly operator?: string | null
  /** `person`, `group`, `cohort`, `flag`, … Only `cohort` and `flag` change how a filter is matched. */
  readonly type?: string
  readonly group_type_index?: number | null
  readonly negation?: boolean
}

export interface ConditionGroup {
  readonly properties?: readonly PropertyFilter[] | null
  /** null or absent means 100. */
  readonly rollout_percentage?: number | null
  /** A variant key this condition forces when it matches. */
  readonly variant?: string | null
}

export interface MultivariateVariant {
  readonly key: string
  readonly name?: string | null
  readonly rollout_percentage: number
}

export interface FlagFilters {
  readonly groups?: readonly ConditionGroup[] | null
  readonly multivariate?: { readonly variants: readonly MultivariateVariant[] } | null
  /** `"true"` or a variant key → the payload, usually a JSON-encoded string. */
  readonly payloads?: Readonly<Record<string, JsonValue>> | null
  /** Set for group-based flags: the group type index whose key is hashed. */
  readonly aggregation_group_type_index?: number | null
  /** Early-access enrollment condition; only the first is used. */
  readonly super_groups?: readonly ConditionGroup[] | null
  /** Experiment holdout; only the first is used. */
  readonly holdout_groups?: readonly ConditionGroup[] | null
}

export interface FlagDefinition {
  readonly id: number
  readonly team_id: number
  readonly key: string
  readonly name: string
  readonly active: boolean
  readonly deleted: boolean
  readonly ensure_experience_continuity: boolean
  readonly filters: FlagFilters
  readonly version?: number | null
}

/** A nested AND/OR group of property filters and groups, as cohorts are defined. */
export interface PropertyGroup {
  readonly type: 'AND' | 'OR'
  readonly values: ReadonlyArray<PropertyGroup | PropertyFilter>
}

/**
 * A dynamic cohort is its property group (the local-evaluation payload's form), or a cohort row's
 * `{filters: {properties: group}}`; a static cohort is `{is_static: true}` and its membership comes
 * with each request.
 */
export type CohortDefinition =
  | PropertyGroup
  | { readonly filters: { readonly properties: PropertyGroup } }
  | { readonly is_static: true }

/** One environment's definitions: the shape of the local-evaluation payload. */
export interface FlagDefinitionSet {
  readonly flags: readonly FlagDefinition[]
  /** Group type index (as a string) → group type name. */
  readonly group_type_mapping?: Readonly<Record<string, string>>
  /** Cohort id (as a string) → definition. */
  readonly cohorts?: Readonly<Record<string, CohortDefinition>>
}
