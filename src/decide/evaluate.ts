import type { CompiledFlag, CompiledFlagSet } from './compile.js'
import type { FilterDate } from './dates.js'
import { evaluateFlag, type Subject } from './evaluate-flag.js'
import type { Remembered } from './evaluation-memo.js'
import type { MatchContext, Properties } from './match-context.js'
import type { EvaluationResult, FlagEvaluation, FlagValue } from './results.js'

const EMPTY: Properties = Object.freeze(Object.create(null) as Record<string, unknown>)
const NO_COHORTS: ReadonlySet<string> = new Set()
/** The results map of a flag set without dependencies: no matcher reads it and none is written. */
const NO_RESULTS: Map<string, FlagValue> = new Map()

export interface EvaluationInput {
  /** The environment's compiled definitions (see `compileFlags`); group type mapping included. */
  readonly definitions: CompiledFlagSet
  readonly distinctId: string
  /**
   * Person properties already merged: stored properties, then GeoIP, then the request's
   * `person_properties`, later layers winning (see `pickProperties`).
   */
  readonly personProperties?: Properties
  /** Group type name → group key, from the request. */
  readonly groups?: Readonly<Record<string, unknown>>
  /** Group type name → that group's merged properties (stored, then the request's). */
  readonly groupProperties?: Readonly<Record<string, Properties>>
  /** Flag key → hash key, for flags with experience continuity whose override is stored. */
  readonly hashKeyOverrides?: Readonly<Record<string, string>>
  /** Ids of the static cohorts the person belongs to. */
  readonly staticCohortIds?: ReadonlySet<string>
  /** `flag_keys_to_evaluate`: only these flags and the flags they depend on. */
  readonly flagKeys?: readonly string[] | null
  /** The instant relative dates are measured from. */
  readonly now: Date | number
  /**
   * What is remembered of the distinct id under these definitions (`EvaluationMemo.of`): its
   * bucketing hashes, and the evaluations of flags that read only its properties, used while
   * those properties are the same and filled in as they are made. Without it, everything is
   * computed afresh.
   */
  readonly remembered?: Remembered | undefined
}

const own = <T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined =>
  record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined

/** A group key as the server reads it: strings as they are, numbers printed, anything else none. */
const groupKeyOf = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : ''

/** `person` is the subject of person flags without a continuity override. */
const subjectFor = (flag: CompiledFlag, input: EvaluationInput, person: Subject): Subject => {
  const { personProps } = person
  if (flag.groupTypeIndex === null) {
    const override = own(input.hashKeyOverrides, flag.key)
    return override === undefined || override === null ? person : { identifier: override, baseIdentifier: input.distinctId, props: personProps, personProps }
  }
  const typeName = input.definitions.groupTypes.get(flag.groupTypeIndex)
  const groupKey = typeName === undefined ? '' : groupKeyOf(own(input.groups, typeName))
  const props = (typeName === undefined ? undefined : own(input.groupProperties, typeName)) ?? EMPTY
  return { identifier: groupKey, baseIdentifier: groupKey, props, personProps }
}

/** The requested flags plus every flag they depend on, or null for all flags. */
const selection = (definitions: CompiledFlagSet, keys: readonly string[] | null | undefined): Set<string> | null => {
  if (!keys) return null
  const selected = new Set<string>()
  const add = (key: string): void => {
    const flag = definitions.byKey.get(key)
    if (!flag || selected.has(key)) return
    selected.add(key)
    for (const dependency of flag.dependsOn) add(dependency)
  }
  for (const key of keys) add(key)
  return selected
}

/**
 * `remembered`'s evaluations when they were made for the same properties as `props` (compared on
 * the keys the flags read); otherwise they are dropped, and kept from now on for `props` when its
 * values are all primitive (an object or list may be changed in place, so it is never the same).
 * Null when there are none to use or keep.
 */
const evaluationsFor = (remembered: Remembered | undefined, keys: readonly string[], props: Properties): (FlagEvaluation | undefined)[] | null => {
  if (remembered === undefined) return null
  const kept = remembered.props
  let same = kept !== null
  for (let i = 0; same && i < keys.length; i++) {
    const key = keys[i]!
    const present = Object.hasOwn(props, key)
    same = present === Object.hasOwn(kept!, key) && (!present || Object.is(props[key], kept![key]))
  }
  if (same) return remembered.evaluations
  remembered.evaluations.fill(undefined)
  remembered.dates.clear()
  remembered.props = null
  const snapshot = Object.create(null) as Record<string, unknown>
  for (const key of keys) {
    if (!Object.hasOwn(props, key)) continue
    const value = props[key]
    if (typeof value === 'object' && value !== null) return null
    snapshot[key] = value
  }
  remembered.props = snapshot
  return remembered.evaluations
}

/**
 * Evaluates an environment's active flags for one distinct id, each flag after the flags it
 * depends on. Pure: the clock comes in as `now`; the same input always gives the same result.
 */
export const evaluateFlags = (input: EvaluationInput): EvaluationResult => {
  const { definitions } = input
  const personProps = input.personProperties ?? EMPTY
  const wanted = selection(definitions, input.flagKeys)
  const context: MatchContext = {
    props: personProps,
    nowMs: typeof input.now === 'number' ? input.now : input.now.getTime(),
    staticCohorts: input.staticCohortIds ?? NO_COHORTS,
    results: definitions.hasDependencies ? new Map<string, FlagValue>() : NO_RESULTS,
    failed: false,
    hashedFor: input.remembered ? input.distinctId : null,
    hashes: input.remembered?.hashes ?? null,
  }
  const remembered = evaluationsFor(input.remembered, definitions.propertyKeys, personProps)
  // Date strings of the remembered properties stay parsed with them; others (a group's, or the
  // properties of a request that keeps none) are parsed for this request only.
  const keptDates = remembered !== null ? input.remembered!.dates : undefined
  let requestDates: Map<string, FilterDate> | undefined
  const person: Subject = { identifier: input.distinctId, baseIdentifier: input.distinctId, props: personProps, personProps }
  // Evaluated in dependency order, reported in definition order; the same order without dependencies.
  const byPosition: (FlagEvaluation | undefined)[] | null = definitions.hasDependencies ? new Array(definitions.size) : null
  const flags: FlagEvaluation[] = []
  let errors = false
  for (const flag of definitions.evaluationOrder) {
    if (wanted !== null && !wanted.has(flag.key)) continue
    const subject = subjectFor(flag, input, person)
    const rememberable = remembered !== null && flag.rememberable && subject === person
    let evaluation = rememberable ? remembered[flag.position] : undefined
    if (evaluation === undefined) {
      const keeps = keptDates !== undefined && subject === person
      context.dates = keeps ? keptDates : requestDates
      evaluation = evaluateFlag(flag, subject, context)
      if (!keeps) requestDates = context.dates
      if (rememberable && !evaluation.failed) remembered[flag.position] = evaluation
    }
    if (evaluation.failed) errors = true
    if (byPosition === null) flags.push(evaluation)
    else {
      context.results.set(flag.key, evaluation.value)
      byPosition[flag.position] = evaluation
    }
  }
  if (byPosition !== null) for (const evaluation of byPosition) if (evaluation) flags.push(evaluation)
  return { flags: input.remembered ? sameAsLast(input.remembered, flags) : flags, errorsWhileComputingFlags: errors }
}

/**
 * The remembered list of flags when `flags` holds the same evaluations, frozen from its second
 * use on (a frozen list has its texts written once, see `decideBody`); otherwise `flags`,
 * remembered for the next request.
 */
const sameAsLast = (remembered: Remembered, flags: FlagEvaluation[]): readonly FlagEvaluation[] => {
  const last = remembered.flags
  if (last !== null && last.length === flags.length && flags.every((evaluation, i) => evaluation === last[i])) return Object.freeze(last)
  remembered.flags = flags
  return flags
}

/**
 * The properties evaluation reads (`keys`, see `CompiledFlagSet.propertyKeys`), each from the last
 * layer that holds it: for person properties pass stored, GeoIP, then the request's
 * `person_properties`. Only those keys are copied, so a request carrying thousands of properties
 * costs no more than one carrying the few the flags read.
 */
export const pickProperties = (keys: readonly string[], ...layers: ReadonlyArray<Properties | null | undefined>): Properties => {
  const picked = Object.create(null) as Record<string, unknown>
  for (const key of keys) {
    for (const layer of layers) if (layer && Object.hasOwn(layer, key)) picked[key] = layer[key]
  }
  return picked
}
