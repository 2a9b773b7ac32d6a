import { stringRepresentation } from './values.js'

/** major, minor, patch */
export type Version = readonly [number, number, number]

const NUMERIC = /^(?:0|[1-9]\d*)$/

/**
 * PostHog's lenient version parse: trim, drop a leading v/V, drop pre-release and build
 * suffixes, default missing minor/patch to 0, ignore components past the third. Each used
 * component must be digits without a leading zero.
 */
export const parseVersion = (value: unknown): Version | null => {
  let text = stringRepresentation(value).trim()
  if (text.startsWith('v') || text.startsWith('V')) text = text.slice(1)
  const suffix = text.search(/[-+]/)
  const core = suffix === -1 ? text : text.slice(0, suffix)
  const parts = core.split('.')
  const used = parts.slice(0, 3)
  if (used.some((part) => !NUMERIC.test(part))) return null
  return [Number(used[0]), Number(used[1] ?? 0), Number(used[2] ?? 0)]
}

export const compareVersions = (a: Version, b: Version): number =>
  a[0] !== b[0] ? a[0] - b[0] : a[1] !== b[1] ? a[1] - b[1] : a[2] - b[2]

/** A half-open range [lower, upper); `upper` null means unbounded. */
export interface VersionRange {
  readonly lower: Version
  readonly upper: Version | null
}

export const inRange = (version: Version, range: VersionRange): boolean =>
  compareVersions(version, range.lower) >= 0 && (range.upper === null || compareVersions(version, range.upper) < 0)

/** `~X.Y.Z` = [X.Y.Z, X.(Y+1).0) */
export const tildeRange = (v: Version): VersionRange => ({ lower: v, upper: [v[0], v[1] + 1, 0] })

/** `^X.Y.Z` = [X.Y.Z, (X+1).0.0) if X>0; [0.Y.Z, 0.(Y+1).0) if X=0<Y; [0.0.Z, 0.0.(Z+1)) otherwise. */
export const caretRange = (v: Version): VersionRange => ({
  lower: v,
  upper: v[0] > 0 ? [v[0] + 1, 0, 0] : v[1] > 0 ? [0, v[1] + 1, 0] : [0, 0, v[2] + 1],
})

/** `X.*` = [X.0.0, (X+1).0.0), `X.Y.*` = [X.Y.0, X.(Y+1).0), `*` = everything; null when malformed. */
export const wildcardRange = (value: unknown): VersionRange | null => {
  let text = stringRepresentation(value).trim()
  if (text.startsWith('v') || text.startsWith('V')) text = text.slice(1)
  if (text === '*') return { lower: [0, 0, 0], upper: null }
  const parts = text.split('.')
  while (parts.length > 1 && parts[parts.length - 1] === '*') parts.pop()
  if (parts.length > 3 || parts.some((part) => !NUMERIC.test(part))) return null
  const [major, minor, patch] = parts.map(Number) as [number, number?, number?]
  if (minor === undefined) return { lower: [major, 0, 0], upper: [major + 1, 0, 0] }
  if (patch === undefined) return { lower: [major, minor, 0], upper: [major, minor + 1, 0] }
  return { lower: [major, minor, patch], upper: [major, minor, patch + 1] }
}
