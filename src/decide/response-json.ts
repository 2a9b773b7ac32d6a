import type { DecideConfig } from './decide-config.js'
import type { DecideFormat, DecideRouting } from './responses.js'
import type { EvaluationResult, FlagEvaluation } from './results.js'

export interface DecideBodyOptions {
  /** The configuration keys (see `decideConfig`); left out when absent or not included. */
  readonly config?: DecideConfig | null
  /** A fresh UUID per request. */
  readonly requestId: string
  /** `["feature_flags"]` and/or `["recordings"]` when the environment is over quota. */
  readonly quotaLimited?: readonly string[] | null
}

const MAX_ARRAY_INDEX = 4294967294

/**
 * Whether an object key is an array index, which a JSON object written from a JavaScript object
 * (as PostHog's clients have always received these maps) has before the other keys, in ascending
 * order, whatever the insertion order.
 */
const isArrayIndex = (key: string): boolean => {
  const first = key.charCodeAt(0)
  if (first < 0x30 || first > 0x39) return false
  return /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) <= MAX_ARRAY_INDEX
}

/** A configuration's members as JSON text followed by a comma, written once per configuration. */
const configMembers = new WeakMap<DecideConfig, string>()

const membersOf = (config: DecideConfig | null | undefined): string => {
  if (!config) return ''
  let members = configMembers.get(config)
  if (members === undefined) {
    members = `${JSON.stringify(config).slice(1, -1)},`
    configMembers.set(config, members)
  }
  return members
}

/** Flags in the order their keys have in a map: array indices first, ascending, then the rest as given. */
const inKeyOrder = (flags: readonly FlagEvaluation[]): readonly FlagEvaluation[] => {
  let indexed: FlagEvaluation[] | null = null
  for (const flag of flags) if (isArrayIndex(flag.key)) (indexed ??= []).push(flag)
  if (indexed === null) return flags
  indexed.sort((a, b) => Number(a.key) - Number(b.key))
  return [...indexed, ...flags.filter((flag) => !isArrayIndex(flag.key))]
}

const json = JSON.stringify

/** An evaluation's texts: its key as JSON, its member of a value map, and its payload's member ('' without one). */
interface EvaluationTexts {
  readonly key: string
  readonly member: string
  readonly payloadMember: string
}

/**
 * Texts by evaluation. Evaluations are shared by every request that has the same outcome (see
 * `evaluateFlag`), so each is written once; an entry goes with its evaluation.
 */
const evaluationTexts = new WeakMap<FlagEvaluation, EvaluationTexts>()

const textsOf = (flag: FlagEvaluation): EvaluationTexts => {
  let texts = evaluationTexts.get(flag)
  if (texts === undefined) {
    const key = json(flag.key)
    const member = flag.value === true ? `${key}:true` : flag.value === false ? `${key}:false` : `${key}:${json(flag.value)}`
    texts = { key, member, payloadMember: flag.payload === null ? '' : `${key}:${json(flag.payload)}` }
    evaluationTexts.set(flag, texts)
  }
  return texts
}

const numberText = (value: number | null): string => (value === null || !Number.isFinite(value) ? 'null' : String(value))

/** Decide v1: `featureFlags` lists the enabled flags' keys, in evaluation order. */
const v1Members = (flags: readonly FlagEvaluation[]): string => {
  let keys = ''
  for (const flag of flags) if (flag.value !== false) keys = keys === '' ? textsOf(flag).key : `${keys},${textsOf(flag).key}`
  return `"featureFlags":[${keys}]`
}

/** Decide v2: `featureFlags` maps enabled flags only to `true` or their variant. */
const v2Members = (flags: readonly FlagEvaluation[]): string => {
  let featureFlags = ''
  for (const flag of flags) {
    if (flag.value === false) continue
    const { member } = textsOf(flag)
    featureFlags = featureFlags === '' ? member : `${featureFlags},${member}`
  }
  return `"featureFlags":{${featureFlags}}`
}

/** Decide v3 (and /flags v1): every evaluated flag, and the payloads of matched flags. */
const v3Members = (flags: readonly FlagEvaluation[]): string => {
  // Joined once at the end: adding to a string each time would leave one string per step.
  const featureFlags: string[] = []
  const payloads: string[] = []
  for (const flag of flags) {
    const { member, payloadMember } = textsOf(flag)
    featureFlags.push(member)
    if (flag.value !== false && payloadMember !== '') payloads.push(payloadMember)
  }
  return `"featureFlags":{${featureFlags.join(',')}},"featureFlagPayloads":{${payloads.join(',')}}`
}

const detailText = (flag: FlagEvaluation, key: string): string => {
  const { reason } = flag
  const payload = flag.value === false || flag.payload === null ? 'null' : json(flag.payload)
  return `{"key":${key},"enabled":${flag.value !== false},"variant":${typeof flag.value === 'string' ? json(flag.value) : 'null'},`
    + `"reason":{"code":${json(reason.code)},"condition_index":${numberText(reason.condition_index)},"description":${json(reason.description)}},`
    + `"metadata":{"id":${numberText(flag.id)},"version":${numberText(flag.version)},"description":null,"payload":${payload}}}`
}

/** Decide v4 and /flags v2: a `flags` map of detailed results (value, reason and metadata). */
const detailedMembers = (flags: readonly FlagEvaluation[]): string => {
  let text = ''
  for (const flag of flags) {
    const { key } = textsOf(flag)
    text += `${text === '' ? '' : ','}${key}:${detailText(flag, key)}`
  }
  return `"flags":{${text}}`
}

/** What v3 and the detailed format write after the flags: the errors flag, the request id, quota limits. */
const closingMembers = (result: EvaluationResult, options: DecideBodyOptions): string => {
  const quota = options.quotaLimited && options.quotaLimited.length > 0 ? `,"quotaLimited":${json(options.quotaLimited)}` : ''
  return `,"errorsWhileComputingFlags":${result.errorsWhileComputingFlags},"requestId":${json(options.requestId)}${quota}`
}

/**
 * The flag members written for a frozen list of flags, by format: decide gives a person the same
 * frozen list while its evaluations stay the same (see `EvaluationMemo`). An entry goes with its list.
 */
const listTexts = new WeakMap<readonly FlagEvaluation[], Partial<Record<DecideFormat, string>>>()

const FLAG_MEMBERS: Record<DecideFormat, (flags: readonly FlagEvaluation[]) => string> = {
  v1: v1Members,
  v2: (flags) => v2Members(inKeyOrder(flags)),
  v3: (flags) => v3Members(inKeyOrder(flags)),
  detailed: (flags) => detailedMembers(inKeyOrder(flags)),
}

const flagMembers = (format: DecideFormat, flags: readonly FlagEvaluation[]): string => {
  if (!Object.isFrozen(flags)) return FLAG_MEMBERS[format](flags)
  let texts = listTexts.get(flags)
  if (texts === undefined) listTexts.set(flags, texts = {})
  return texts[format] ??= FLAG_MEMBERS[format](flags)
}

/**
 * A decide body as JSON text, written directly rather than through objects whose keys are flag
 * keys (building such an object costs more than writing the whole body this way): the
 * configuration's keys when the route includes them, then the routed format's members. Flag keys
 * are unique in `result`, as `evaluateFlags` reports them.
 */
export const decideBody = (routing: DecideRouting, result: EvaluationResult, options: DecideBodyOptions): string => {
  const config = membersOf(routing.includeConfig ? options.config : null)
  const members = flagMembers(routing.format, result.flags)
  return routing.format === 'v1' || routing.format === 'v2' ? `{${config}${members}}` : `{${config}${members}${closingMembers(result, options)}}`
}
