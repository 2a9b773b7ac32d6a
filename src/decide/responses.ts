import type { DecideConfig } from './decide-config.js'
import type { EvaluationResult, FlagEvaluation } from './results.js'

/** Body formats: decide v1 (list), v2 (enabled map), v3 (all flags + payloads), detailed (decide v4, /flags v2). */
export type DecideFormat = 'v1' | 'v2' | 'v3' | 'detailed'

export interface DecideRouting {
  readonly format: DecideFormat
  /** Whether the configuration keys go in the body. */
  readonly includeConfig: boolean
}

const first = (value: unknown): unknown => (Array.isArray(value) ? value[0] : value)

const versionParam = (value: unknown): number | null => {
  const raw = first(value)
  if (typeof raw === 'number' && Number.isInteger(raw)) return raw
  return typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : null
}

const isTrue = (value: unknown): boolean => {
  const raw = first(value)
  return raw === true || (typeof raw === 'string' && ['true', '1'].includes(raw.trim().toLowerCase()))
}

/**
 * PostHog's version routing. `/decide`: v missing, 1 or unknown → v1, 2 → v2, 3 → v3, ≥ 4 →
 * detailed, config always. `/flags`: v ≥ 2 → detailed, else the v3 format; config only with
 * `config=true`, except that with neither `v` nor `config` it is detailed with config.
 */
export const decideVersion = (path: string, query: Readonly<Record<string, unknown>>): DecideRouting => {
  const pathname = path.split('?')[0] ?? ''
  const version = versionParam(query['v'])
  if (!/(?:^|\/)flags\/?$/.test(pathname)) {
    const format: DecideFormat = version === 2 ? 'v2' : version === 3 ? 'v3' : version !== null && version >= 4 ? 'detailed' : 'v1'
    return { format, includeConfig: true }
  }
  if (version === null && first(query['config']) === undefined) return { format: 'detailed', includeConfig: true }
  return { format: version !== null && version >= 2 ? 'detailed' : 'v3', includeConfig: isTrue(query['config']) }
}

export interface DecideBodyOptions {
  /** The configuration keys (see `decideConfig`); left out when absent or not included. */
  readonly config?: DecideConfig | null
  /** A fresh UUID per request. */
  readonly requestId: string
  /** `["feature_flags"]` and/or `["recordings"]` when the environment is over quota. */
  readonly quotaLimited?: readonly string[] | null
}

// Flag keys may be any of [a-zA-Z0-9_-]+, including "__proto__", so maps have no prototype.
const map = <T>(): Record<string, T> => Object.create(null) as Record<string, T>

const extras = (options: DecideBodyOptions): Record<string, unknown> =>
  options.quotaLimited && options.quotaLimited.length > 0 ? { quotaLimited: [...options.quotaLimited] } : {}

/** Decide v1: `featureFlags` is the list of enabled flag keys. */
export const decideV1Body = (result: EvaluationResult, config: DecideConfig | null = null): Record<string, unknown> => ({
  ...config,
  featureFlags: result.flags.filter((flag) => flag.value !== false).map((flag) => flag.key),
})

/** Decide v2: `featureFlags` maps enabled flags only to `true` or their variant. */
export const decideV2Body = (result: EvaluationResult, config: DecideConfig | null = null): Record<string, unknown> => {
  const featureFlags = map<boolean | string>()
  for (const flag of result.flags) if (flag.value !== false) featureFlags[flag.key] = flag.value
  return { ...config, featureFlags }
}

/** Decide v3 (and /flags v1): every evaluated flag, payloads of matched flags, the errors flag. */
export const decideV3Body = (result: EvaluationResult, options: DecideBodyOptions): Record<string, unknown> => {
  const featureFlags = map<boolean | string>()
  const featureFlagPayloads = map<string>()
  for (const flag of result.flags) {
    featureFlags[flag.key] = flag.value
    if (flag.value !== false && flag.payload !== null) featureFlagPayloads[flag.key] = flag.payload
  }
  return {
    ...options.config,
    featureFlags,
    featureFlagPayloads,
    errorsWhileComputingFlags: result.errorsWhileComputingFlags,
    requestId: options.requestId,
    ...extras(options),
  }
}

const details = (flag: FlagEvaluation) => ({
  key: flag.key,
  enabled: flag.value !== false,
  variant: typeof flag.value === 'string' ? flag.value : null,
  reason: { code: flag.reason.code, condition_index: flag.reason.condition_index, description: flag.reason.description },
  metadata: { id: flag.id, version: flag.version, description: null, payload: flag.value === false ? null : flag.payload },
})

/** Decide v4 and /flags v2: a `flags` map of detailed results. */
export const detailedBody = (result: EvaluationResult, options: DecideBodyOptions): Record<string, unknown> => {
  const flags = map<ReturnType<typeof details>>()
  for (const flag of result.flags) flags[flag.key] = details(flag)
  return { ...options.config, flags, errorsWhileComputingFlags: result.errorsWhileComputingFlags, requestId: options.requestId, ...extras(options) }
}

/** The body for a routed request: config included or not, in the routed format. */
export const decideBody = (routing: DecideRouting, result: EvaluationResult, options: DecideBodyOptions): Record<string, unknown> => {
  const config = routing.includeConfig ? (options.config ?? null) : null
  switch (routing.format) {
    case 'v1': return decideV1Body(result, config)
    case 'v2': return decideV2Body(result, config)
    case 'v3': return decideV3Body(result, { ...options, config })
    case 'detailed': return detailedBody(result, { ...options, config })
  }
}
