import { cohortMatchers, compileCohortFilter } from './cohorts.js'
import type { ConditionGroup, FlagDefinition, FlagDefinitionSet, JsonValue, PropertyFilter } from './definitions.js'
import { dependencyMatcher, dependencyTarget, orderByDependencies } from './dependencies.js'
import type { Matcher } from './match-context.js'
import type { FlagEvaluation, FlagValue, ReasonCode } from './results.js'
import { compilePropertyFilter, readsClock } from './property-match.js'

export interface CompiledCondition {
  /** Position in `filters.groups`, which reasons report. */
  readonly index: number
  /** Flag dependencies first, then plain properties, then cohorts: the server's order. */
  readonly matchers: readonly Matcher[]
  /** 0–100; a missing percentage is 100. */
  readonly rollout: number
  /** Whether the condition names a variant: such conditions are tried first. */
  readonly overridesVariant: boolean
  /** The named variant when it exists on the flag; otherwise the variant is computed. */
  readonly variant: string | null
}

export interface CompiledFlag {
  readonly key: string
  readonly id: number
  readonly version: number
  /** Position in the definitions, the order results are reported in. */
  readonly position: number
  readonly groupTypeIndex: number | null
  /** Conditions with variant overrides first, otherwise in their original order. */
  readonly conditions: readonly CompiledCondition[]
  /** Variant keys with the cumulative upper bound of their bucket, in listed order. */
  readonly variants: ReadonlyArray<{ readonly key: string; readonly upper: number }>
  /** Payload strings by `"true"` or variant key. */
  readonly payloads: ReadonlyMap<string, string>
  readonly superCondition: { readonly condition: CompiledCondition; readonly keys: readonly string[] } | null
  readonly holdout: { readonly rollout: number | null; readonly variant: string | null; readonly hasProperties: boolean } | null
  readonly dependsOn: readonly string[]
  /**
   * Whether its evaluation reads nothing but the identifier and the person's properties: a person
   * flag with no date, cohort or flag filter. Such an evaluation holds for as long as the flags
   * and those properties are unchanged (see `EvaluationMemo`).
   */
  readonly rememberable: boolean
  /** In a dependency cycle, or depending on a missing or broken flag: always `false` and an error. */
  readonly brokenDependency: boolean
  /**
   * The evaluations this flag has given, shared by every request: by reason code, condition
   * index and value (see `evaluateFlag`). Bounded by the flag itself: its values times its reasons.
   */
  readonly outcomes: Map<ReasonCode, Map<number | null, Map<FlagValue, FlagEvaluation>>>
}

/** One environment's definitions, compiled once and reused by every request. */
export interface CompiledFlagSet {
  /** Active, non-deleted flags, each after the flags it depends on. */
  readonly evaluationOrder: readonly CompiledFlag[]
  readonly byKey: ReadonlyMap<string, CompiledFlag>
  readonly groupTypes: ReadonlyMap<number, string>
  readonly size: number
  /** Whether a flag reads another's value: only then are values recorded as flags are evaluated. */
  readonly hasDependencies: boolean
  /**
   * Every property key a condition, super condition or cohort of these flags reads, of persons or
   * groups: the only properties evaluation needs (see `pickProperties`).
   */
  readonly propertyKeys: readonly string[]
}

interface Lookups {
  readonly byId: ReadonlyMap<string, FlagDefinition>
  readonly byKey: ReadonlyMap<string, FlagDefinition>
  readonly cohort: ReturnType<typeof cohortMatchers>
  /** The property keys compiled matchers read, collected as they are compiled. */
  readonly reads: Set<string>
}

const payloadText = (value: JsonValue): string => (typeof value === 'string' ? value : JSON.stringify(value))

const compileCondition = (group: ConditionGroup, index: number, variantKeys: ReadonlySet<string>, lookups: Lookups, dependsOn: string[], missing: { value: boolean }): CompiledCondition => {
  const flagMatchers: Matcher[] = []
  const plain: Matcher[] = []
  const cohort: Matcher[] = []
  for (const filter of group.properties ?? []) {
    if (filter.type === 'flag') flagMatchers.push(compileDependency(filter, lookups, dependsOn, missing))
    else if (filter.type === 'cohort') cohort.push(compileCohortFilter(filter, lookups.cohort))
    else plain.push(compilePropertyFilter(filter, lookups.reads))
  }
  const override = group.variant ?? null
  return {
    index,
    matchers: [...flagMatchers, ...plain, ...cohort],
    rollout: group.rollout_percentage ?? 100,
    overridesVariant: override !== null,
    variant: override !== null && variantKeys.has(override) ? override : null,
  }
}

const compileDependency = (filter: PropertyFilter, lookups: Lookups, dependsOn: string[], missing: { value: boolean }): Matcher => {
  const target = dependencyTarget(filter, lookups.byId, lookups.byKey)
  if (!target) {
    missing.value = true
    return () => false
  }
  if (target.active) dependsOn.push(target.key)
  return dependencyMatcher(target.key, filter)
}

/** A filter whose answer depends on the properties alone. */
const readsOnlyProperties = (filter: PropertyFilter): boolean => filter.type !== 'flag' && filter.type !== 'cohort' && !readsClock(filter)

const compileFlag = (flag: FlagDefinition, position: number, lookups: Lookups): { compiled: Omit<CompiledFlag, 'brokenDependency' | 'outcomes'>; missing: boolean } => {
  const filters = flag.filters ?? {}
  const variantList = filters.multivariate?.variants ?? []
  const variantKeys = new Set(variantList.map((variant) => variant.key))
  const dependsOn: string[] = []
  const missing = { value: false }
  const conditions = (filters.groups ?? []).map((group, index) => compileCondition(group, index, variantKeys, lookups, dependsOn, missing))
  // Stable: conditions naming a variant first, so the first matching one applies its override.
  conditions.sort((a, b) => Number(b.overridesVariant) - Number(a.overridesVariant))
  let cumulative = 0
  const variants = variantList.map((variant) => {
    cumulative += variant.rollout_percentage / 100
    return { key: variant.key, upper: cumulative }
  })
  const payloads = new Map<string, string>()
  for (const [key, value] of Object.entries(filters.payloads ?? {})) if (value !== null) payloads.set(key, payloadText(value))
  const superGroup = filters.super_groups?.[0]
  const holdoutGroup = filters.holdout_groups?.[0]
  const groupTypeIndex = filters.aggregation_group_type_index ?? null
  const read = [...(filters.groups ?? []), ...(superGroup ? [superGroup] : [])]
  const compiled = {
    key: flag.key,
    id: flag.id,
    version: flag.version ?? 0,
    position,
    groupTypeIndex,
    conditions,
    variants,
    payloads,
    superCondition: superGroup
      ? { condition: compileCondition(superGroup, 0, variantKeys, lookups, dependsOn, missing), keys: (superGroup.properties ?? []).map((p) => p.key) }
      : null,
    holdout: holdoutGroup
      ? { rollout: holdoutGroup.rollout_percentage ?? null, variant: holdoutGroup.variant ?? null, hasProperties: (holdoutGroup.properties ?? []).length > 0 }
      : null,
    dependsOn,
    rememberable: groupTypeIndex === null && read.every((group) => (group.properties ?? []).every(readsOnlyProperties)),
  }
  return { compiled, missing: missing.value }
}

/**
 * Compiles an environment's definitions: property filters, patterns, dates and cohorts parsed
 * once, variant buckets and payload strings precomputed, flags ordered by their dependencies.
 * Deleted flags are dropped; inactive flags are kept out of evaluation (they read as `false`
 * to flags that depend on them). A later duplicate key is ignored.
 */
export const compileFlags = (definitions: FlagDefinitionSet): CompiledFlagSet => {
  const live = definitions.flags.filter((flag) => !flag.deleted)
  const byKey = new Map<string, FlagDefinition>()
  for (const flag of live) if (!byKey.has(flag.key)) byKey.set(flag.key, flag)
  const byId = new Map([...byKey.values()].map((flag) => [String(flag.id), flag]))
  const reads = new Set<string>()
  const lookups: Lookups = { byId, byKey, cohort: cohortMatchers(definitions.cohorts, reads), reads }

  const active = [...byKey.values()].filter((flag) => flag.active)
  const compiled = active.map((flag, position) => compileFlag(flag, position, lookups))
  const { order, broken } = orderByDependencies(compiled.map(({ compiled: flag, missing }) => ({ key: flag.key, dependsOn: flag.dependsOn, missingDependency: missing })))
  const finished = new Map<string, CompiledFlag>()
  for (const { compiled: flag } of compiled) finished.set(flag.key, { ...flag, brokenDependency: broken.has(flag.key), outcomes: new Map() })

  const groupTypes = new Map<number, string>()
  for (const [index, name] of Object.entries(definitions.group_type_mapping ?? {})) groupTypes.set(Number(index), name)
  const hasDependencies = compiled.some(({ compiled: flag }) => flag.dependsOn.length > 0)
  return { evaluationOrder: order.map((key) => finished.get(key)!), byKey: finished, groupTypes, size: finished.size, hasDependencies, propertyKeys: [...reads] }
}
