import { createHash } from 'node:crypto'
import { canonicalJson } from '../../kernel/canonical-json.js'
import type { QueryNode } from '../schema/query-node.js'

/** Bumped when the engine's answers change, so no result of an older engine is served. */
export const ENGINE_VERSION = 1

/**
 * PostHog's cache key: `cache_` and the MD5 of the query, the environment and everything that
 * changes the answer (its time zone, week start and test-account filters), as canonical JSON.
 */
export const cacheKeyOf = (query: QueryNode, environmentId: number, settings: unknown): string =>
  `cache_${createHash('md5').update(canonicalJson({ query, team_id: environmentId, settings, version: ENGINE_VERSION })).digest('hex')}`
