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
