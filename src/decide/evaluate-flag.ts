import type { CompiledCondition, CompiledFlag } from './compile.js'
import { flagHash, holdoutHash } from './hash.js'
import type { MatchContext, Properties } from './match-context.js'
import { reason, reasonRank, type FlagEvaluation, type FlagValue, type ReasonCode } from './results.js'
import { hasProperty } from './values.js'

/** Who a flag is evaluated for: the hashed identifier and the properties its conditions read. */
export interface Subject {
  /** Distinct id (or its experience-continuity override) or group key; '' when there is none. */
  readonly identifier: string
  /** The identifier without a continuity override: holdouts hash this one. */
  readonly baseIdentifier: string
  readonly props: Properties
  readonly personProps: Properties
}

const made = (flag: CompiledFlag, value: FlagValue, code: ReasonCode, conditionIndex: number | null, failed: boolean): FlagEvaluation => Object.freeze({
  key: flag.key,
  id: flag.id,
  version: flag.version,
  value,
  payload: value === false ? null : (flag.payloads.get(value === true ? 'true' : value) ?? null),
  reason: reason(code, conditionIndex),
  failed,
})

/**
 * A flag's evaluation for this value and reason. Evaluations are frozen and shared: the flag keeps
 * one per outcome it has had (its values times its reasons, a handful), so a request makes none.
 */
const result = (flag: CompiledFlag, value: FlagValue, code: ReasonCode, conditionIndex: number | null, failed = false): FlagEvaluation => {
  if (failed) return made(flag, value, code, conditionIndex, failed)
  let byIndex = flag.outcomes.get(code)
  if (byIndex === undefined) flag.outcomes.set(code, byIndex = new Map())
  let byValue = byIndex.get(conditionIndex)
  if (byValue === undefined) byIndex.set(conditionIndex, byValue = new Map())
  let outcome = byValue.get(value)
  if (outcome === undefined) byValue.set(value, outcome = made(flag, value, code, conditionIndex, failed))
  return outcome
}

const failure = (flag: CompiledFlag): FlagEvaluation => result(flag, false, 'missing_dependency', null, true)

/**
 * `flagHash` of the flag for `identifier`, read from the request's remembered hashes when they
 * are the identifier's (slot 0 rollout, 1 variant), and written there when first computed.
 */
const hashOf = (flag: CompiledFlag, identifier: string, salt: '' | 'variant', context: MatchContext): number => {
  const slots = context.hashedFor === identifier ? context.hashes : null
  if (!slots) return flagHash(flag.key, identifier, salt)
  const at = flag.position * 2 + (salt === '' ? 0 : 1)
  let hash = slots[at]!
  if (Number.isNaN(hash)) slots[at] = hash = flagHash(flag.key, identifier, salt)
  return hash
}

/** The variant whose cumulative bucket first lies above the variant hash; null when none does. */
const matchingVariant = (flag: CompiledFlag, identifier: string, context: MatchContext): string | null => {
  if (flag.variants.length === 0) return null
  const hash = hashOf(flag, identifier, 'variant', context)
  for (const variant of flag.variants) if (hash < variant.upper) return variant.key
  return null
}

const propertiesMatch = (condition: CompiledCondition, context: MatchContext): boolean => {
  for (const matcher of condition.matchers) if (!matcher(context)) return false
  return true
}

/** Rollout check: 100 always passes, otherwise the rollout hash must not exceed the percentage. */
const withinRollout = (flag: CompiledFlag, condition: CompiledCondition, identifier: string, context: MatchContext): boolean =>
  condition.rollout === 100 || hashOf(flag, identifier, '', context) <= condition.rollout / 100

const superConditionResult = (flag: CompiledFlag, subject: Subject, context: MatchContext): FlagEvaluation | null => {
  const superCondition = flag.superCondition
  if (!superCondition || !superCondition.keys.some((key) => hasProperty(subject.personProps, key))) return null
  context.props = subject.personProps
  const matched = propertiesMatch(superCondition.condition, context) && withinRollout(flag, superCondition.condition, subject.identifier, context)
  if (context.failed) return failure(flag)
  return result(flag, matched, 'super_condition_value', 0)
}

const holdoutResult = (flag: CompiledFlag, subject: Subject, context: MatchContext): FlagEvaluation | null => {
  const holdout = flag.holdout
  if (!holdout || holdout.hasProperties) return null
  if (holdout.rollout !== null && holdoutHash(subject.baseIdentifier) > holdout.rollout / 100) return null
  const variant = holdout.variant ?? matchingVariant(flag, subject.baseIdentifier, context) ?? 'holdout'
  return result(flag, variant, 'holdout_condition_value', null)
}

/**
 * Evaluates one flag as PostHog's server does: super condition, holdout, then the condition
 * groups (variant overrides first); the first matching group wins and picks the variant.
 * When none matches, the highest-ranked failure reason is reported.
 */
export const evaluateFlag = (flag: CompiledFlag, subject: Subject, context: MatchContext): FlagEvaluation => {
  if (flag.brokenDependency) return failure(flag)
  if (subject.identifier === '') return result(flag, false, 'no_group_type', null)
  context.failed = false
  const superResult = superConditionResult(flag, subject, context)
  if (superResult) return superResult
  const holdout = holdoutResult(flag, subject, context)
  if (holdout) return holdout

  context.props = subject.props
  let best: ReasonCode = 'no_condition_match'
  let bestIndex: number | null = null
  for (const condition of flag.conditions) {
    const propertiesOk = propertiesMatch(condition, context)
    if (context.failed) return failure(flag)
    const code: ReasonCode = !propertiesOk ? 'no_condition_match' : withinRollout(flag, condition, subject.identifier, context) ? 'condition_match' : 'out_of_rollout_bound'
    if (reasonRank[best] <= reasonRank[code]) {
      best = code
      bestIndex = condition.index
    }
    if (code === 'condition_match') {
      const variant = condition.variant ?? matchingVariant(flag, subject.identifier, context)
      return result(flag, variant ?? true, 'condition_match', condition.index)
    }
  }
  return result(flag, false, best, bestIndex)
}
