import { boundedCache } from '../kernel/bounded-cache.js'
import type { DecideConfig } from './decide-config.js'
import { decideBody, type DecideBodyOptions, type DecideRouting } from './responses.js'
import type { EvaluationResult, FlagEvaluation } from './results.js'

/** The keys a body sets after the configuration's; a configuration holding one of them would keep its place. */
const BODY_KEYS = new Set(['featureFlags', 'featureFlagPayloads', 'flags', 'errorsWhileComputingFlags', 'requestId', 'quotaLimited'])

const MAX_ARRAY_INDEX = 4294967294

/**
 * Whether an object key is an array index, which `JSON.stringify` (as every property enumeration)
 * puts before the other keys, in ascending order, whatever the insertion order.
 */
const isArrayIndex = (key: string): boolean => {
  const first = key.charCodeAt(0)
  if (first < 0x30 || first > 0x39) return false
  return /^(?:0|[1-9][0-9]*)$/.test(key) && Number(key) <= MAX_ARRAY_INDEX
}

/** A configuration's members as JSON text followed by a comma ('' when it has none), or null when it cannot lead a body. */
const configMembers = new WeakMap<DecideConfig, string | null>()

const membersOf = (config: DecideConfig | null | undefined): string | null => {
  if (!config) return ''
  let members = configMembers.get(config)
  if (members === undefined) {
    const keys = Object.keys(config)
    const plain = keys.every((key) => !BODY_KEYS.has(key) && !isArrayIndex(key))
    const text = JSON.stringify(config)
    members = !plain ? null : text === '{}' ? '' : `${text.slice(1, -1)},`
    configMembers.set(config, members)
  }
  return members
}

/** Flags in the order their keys enumerate in an object: array indices first, ascending, then the rest as given. */
const inKeyOrder = (flags: readonly FlagEvaluation[]): readonly FlagEvaluation[] => {
  let indexed: FlagEvaluation[] | null = null
  for (const flag of flags) if (isArrayIndex(flag.key)) (indexed ??= []).push(flag)
  if (indexed === null) return flags
  indexed.sort((a, b) => Number(a.key) - Number(b.key))
  return [...indexed, ...flags.filter((flag) => !isArrayIndex(flag.key))]
}

const json = JSON.stringify

/** A flag key's JSON text and the members written for it, kept since the same keys are written on every request. */
interface KeyTexts {
  readonly key: string
  readonly on: string
  readonly off: string
  /** The payload last written for this key, and its member. */
  payload: string | null
  payloadMember: string
}

/** Flag keys' texts kept at most; the least recently written go first. */
const KEPT_KEYS = 10_000
const keyTexts = boundedCache<string, KeyTexts>({ max: KEPT_KEYS })

const textsOf = (flagKey: string): KeyTexts => {
  let texts = keyTexts.get(flagKey)
  if (texts === undefined) {
    const key = json(flagKey)
    texts = { key, on: `${key}:true`, off: `${key}:false`, payload: null, payloadMember: '' }
    keyTexts.set(flagKey, texts)
  }
  return texts
}

const payloadMember = (texts: KeyTexts, payload: string): string => {
  if (texts.payload !== payload) {
    texts.payload = payload
    texts.payloadMember = `${texts.key}:${json(payload)}`
  }
  return texts.payloadMember
}

const numberText = (value: number | null): string => (value === null || !Number.isFinite(value) ? 'null' : String(value))

const v3Members = (flags: readonly FlagEvaluation[]): string => {
  let featureFlags = ''
  let payloads = ''
  for (const flag of flags) {
    const texts = textsOf(flag.key)
    const { value } = flag
    const member = value === true ? texts.on : value === false ? texts.off : `${texts.key}:${json(value)}`
    featureFlags = featureFlags === '' ? member : `${featureFlags},${member}`
    if (value !== false && flag.payload !== null) {
      const written = payloadMember(texts, flag.payload)
      payloads = payloads === '' ? written : `${payloads},${written}`
    }
  }
  return `"featureFlags":{${featureFlags}},"featureFlagPayloads":{${payloads}}`
}

const detailText = (flag: FlagEvaluation, key: string): string => {
  const { reason } = flag
  const payload = flag.value === false || flag.payload === null ? 'null' : json(flag.payload)
  return `{"key":${key},"enabled":${flag.value !== false},"variant":${typeof flag.value === 'string' ? json(flag.value) : 'null'},`
    + `"reason":{"code":${json(reason.code)},"condition_index":${numberText(reason.condition_index)},"description":${json(reason.description)}},`
    + `"metadata":{"id":${numberText(flag.id)},"version":${numberText(flag.version)},"description":null,"payload":${payload}}}`
}

const detailedMembers = (flags: readonly FlagEvaluation[]): string => {
  let text = ''
  for (const flag of flags) {
    const key = textsOf(flag.key).key
    text += `${text === '' ? '' : ','}${key}:${detailText(flag, key)}`
  }
  return `"flags":{${text}}`
}

const closingMembers = (result: EvaluationResult, options: DecideBodyOptions): string => {
  const quota = options.quotaLimited && options.quotaLimited.length > 0 ? `,"quotaLimited":${json(options.quotaLimited)}` : ''
  return `"errorsWhileComputingFlags":${result.errorsWhileComputingFlags},"requestId":${json(options.requestId)}${quota}`
}

/**
 * The JSON text of {@link decideBody}, byte for byte, written directly for the v3 and detailed
 * formats rather than through objects whose keys are flag keys. Flag keys are unique in
 * `result`, as `evaluateFlags` reports them.
 */
export const decideBodyJson = (routing: DecideRouting, result: EvaluationResult, options: DecideBodyOptions): string => {
  const config = routing.includeConfig ? (options.config ?? null) : null
  const members = routing.format === 'v3' || routing.format === 'detailed' ? membersOf(config) : null
  if (members === null) return JSON.stringify(decideBody(routing, result, options))
  const flags = inKeyOrder(result.flags)
  const flagMembers = routing.format === 'v3' ? v3Members(flags) : detailedMembers(flags)
  return `{${members}${flagMembers},${closingMembers(result, options)}}`
}
