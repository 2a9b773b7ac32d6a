import type { FlagDefinition, FlagFilters } from '../../../src/decide/definitions.js'

let nextId = 1000

/** A flag definition as the local-evaluation payload carries it. */
export const flag = (key: string, filters: FlagFilters, extra: Partial<FlagDefinition> = {}): FlagDefinition => ({
  id: nextId++,
  team_id: 1,
  key,
  name: key,
  active: true,
  deleted: false,
  ensure_experience_continuity: false,
  filters,
  version: 1,
  ...extra,
})

/** Mulberry32: a small seeded PRNG, so random cases are the same on every run. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let x = state
    x = Math.imul(x ^ (x >>> 15), x | 1)
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61)
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}
