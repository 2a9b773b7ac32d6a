import { createHash } from 'node:crypto'
import type { JsonObject } from '../eventlog/port.js'
import { canonicalJson } from '../kernel/canonical-json.js'
import type { Environment } from '../readstore/environment.js'
import type { Insight } from './state.js'
import { refreshModeOf, type RefreshMode } from './query/refresh.js'

export type { RefreshMode } from './query/refresh.js'

/** `?refresh=` of an insight read: PostHog's modes, `force_cache` (never compute) when absent or unknown. */
export const refreshMode = (raw: string | undefined): RefreshMode => refreshModeOf(raw, 'force_cache')

/** The members of an insight that come from running its query, and the cache that holds the run. */
export interface InsightResultFields {
  result: unknown
  hasMore: boolean | null
  columns: unknown[] | null
  types: unknown[] | null
  hogql: string | null
  last_refresh: string | null
  cache_target_age: string | null
  next_allowed_client_refresh: string | null
  is_cached: boolean
  query_status: JsonObject | null
  timezone: string
  resolved_date_range: { date_from: string; date_to: string } | null
  /** The cache key of the run (`cache_<md5>`), as PostHog reports it. */
  filters_hash: string
}

/**
 * Produces an insight's results for one environment under one execution mode. Routes get it
 * from their dependencies: the insights API, a dashboard's insight tiles and shared views all
 * ask this one function.
 */
export type InsightResults = (environment: Environment, insight: Insight, refresh: RefreshMode) => Promise<InsightResultFields>

const environmentTimezone = (environment: Environment): string =>
  typeof environment['timezone'] === 'string' ? environment['timezone'] : 'UTC'

/** A cache key over what decides a run's result: the query (or legacy filters), the environment and its timezone. */
export const resultsCacheKey = (environment: Environment, insight: Pick<Insight, 'query' | 'filters'>): string => {
  const basis = canonicalJson({ query: insight.query ?? insight.filters, team_id: environment.id, timezone: environmentTimezone(environment) })
  return `cache_${createHash('md5').update(basis).digest('hex')}`
}

/**
 * What PostHog answers for an insight whose query has not been computed (a cache miss under
 * `force_cache`): no result, no refresh time, not cached, whatever the mode. The routes use it
 * when their dependencies name no other `InsightResults`.
 */
export const notComputedResults: InsightResults = async (environment, insight) => ({
  result: null,
  hasMore: null,
  columns: null,
  types: null,
  hogql: null,
  last_refresh: null,
  cache_target_age: null,
  next_allowed_client_refresh: null,
  is_cached: false,
  query_status: null,
  timezone: environmentTimezone(environment),
  resolved_date_range: null,
  filters_hash: resultsCacheKey(environment, insight),
})
