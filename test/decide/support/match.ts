import type { PropertyFilter } from '../../../src/decide/definitions.js'
import type { MatchContext } from '../../../src/decide/match-context.js'
import { compilePropertyFilter } from '../../../src/decide/property-match.js'

export const NOW = Date.parse('2024-06-15T12:00:00.000Z')

export const contextFor = (props: Record<string, unknown>, nowMs = NOW): MatchContext => ({
  props,
  nowMs,
  staticCohorts: new Set(),
  results: new Map(),
  failed: false,
})

/** Whether a person/group property filter matches `props`, with the server's semantics. */
export const matches = (filter: Omit<PropertyFilter, 'key'> & { key?: string }, props: Record<string, unknown>, nowMs = NOW): boolean =>
  compilePropertyFilter({ key: 'key', ...filter }, new Set())(contextFor(props, nowMs))
