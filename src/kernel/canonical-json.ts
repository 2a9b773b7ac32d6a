import { createHash } from 'node:crypto'

/**
 * JSON with object keys sorted at every depth, so equal documents always serialise to the same
 * bytes whatever order their keys were written in. Bigints are written as decimal strings.
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return JSON.stringify(value.toString())
    if (value === undefined) return 'null'
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`
}

/** The entries of `changes` whose value differs from `current`'s, compared as canonical JSON: what a partial update really changes. */
export const changedFields = <T extends object>(current: object, changes: T): Partial<T> =>
  Object.fromEntries(Object.entries(changes)
    .filter(([field, value]) => canonicalJson((current as Record<string, unknown>)[field]) !== canonicalJson(value))) as Partial<T>

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex')
