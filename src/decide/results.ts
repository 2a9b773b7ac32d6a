/** What a flag evaluates to: off, on, or the key of a variant. */
export type FlagValue = boolean | string

export type ReasonCode =
  | 'condition_match'
  | 'no_condition_match'
  | 'out_of_rollout_bound'
  | 'no_group_type'
  | 'super_condition_value'
  | 'holdout_condition_value'
  | 'missing_dependency'

/** The `reason` object of the detailed (decide v4, /flags v2) format, with its wire names. */
export interface FlagReason {
  readonly code: ReasonCode
  readonly condition_index: number | null
  readonly description: string
}

export interface FlagEvaluation {
  readonly key: string
  readonly id: number
  readonly version: number
  readonly value: FlagValue
  /** The matched value's payload as decide v3 returns it (a string), or null. */
  readonly payload: string | null
  readonly reason: FlagReason
  /** True when the flag could not be computed (it is then `false`). */
  readonly failed: boolean
}

export interface EvaluationResult {
  /** Evaluated active flags, in definition order. */
  readonly flags: readonly FlagEvaluation[]
  readonly errorsWhileComputingFlags: boolean
}

/** PostHog's reason precedence when several condition groups fail: the higher one is reported. */
export const reasonRank: Readonly<Record<ReasonCode, number>> = {
  super_condition_value: 6,
  holdout_condition_value: 5,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_group_type: 1,
  missing_dependency: -1,
}

const fixedDescriptions: Readonly<Record<Exclude<ReasonCode, 'condition_match'>, string>> = {
  no_condition_match: 'No matching condition set',
  out_of_rollout_bound: 'Out of rollout bound',
  no_group_type: 'No group type',
  super_condition_value: 'Super condition value',
  holdout_condition_value: 'Holdout condition value',
  missing_dependency: 'Flag cannot be evaluated due to missing dependency',
}

/** PostHog's human description of a reason; condition sets are numbered from 1. */
export const describeReason = (code: ReasonCode, conditionIndex: number | null): string =>
  code === 'condition_match' ? `Matched condition set ${(conditionIndex ?? 0) + 1}` : fixedDescriptions[code]

const describedReason = (code: ReasonCode, conditionIndex: number | null): FlagReason =>
  Object.freeze({ code, condition_index: conditionIndex, description: describeReason(code, conditionIndex) })

/** Reasons are frozen and shared: one per code without an index, one per code and index up to this many. */
const SHARED_INDICES = 64
const sharedReasons = new Map<ReasonCode, { readonly none: FlagReason; readonly byIndex: Array<FlagReason | undefined> }>()

export const reason = (code: ReasonCode, conditionIndex: number | null): FlagReason => {
  let shared = sharedReasons.get(code)
  if (shared === undefined) {
    shared = { none: describedReason(code, null), byIndex: [] }
    sharedReasons.set(code, shared)
  }
  if (conditionIndex === null) return shared.none
  if (!Number.isInteger(conditionIndex) || conditionIndex < 0 || conditionIndex >= SHARED_INDICES) return describedReason(code, conditionIndex)
  return shared.byIndex[conditionIndex] ??= describedReason(code, conditionIndex)
}

/** An evaluation result with no flags, for GET, disabled flags and quota-limited requests. */
export const emptyEvaluation = (): EvaluationResult => ({ flags: [], errorsWhileComputingFlags: false })
