import type { JsonObject } from '../../eventlog/port.js'
import { DomainError } from '../../kernel/errors.js'
import type { ReadModels } from '../../readstore/read-models.js'
import { notComputedResults, type InsightResultFields, type InsightResults } from '../results.js'
import { parseQueryNode, type QueryNode } from '../schema/query-node.js'
import { queryServiceOf } from './query-service.js'

const orNull = <T>(value: unknown, test: (value: unknown) => value is T): T | null => (test(value) ? value : null)
const isString = (value: unknown): value is string => typeof value === 'string'
const isArray = (value: unknown): value is unknown[] => Array.isArray(value)
const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value)

/** The query an insight runs: the source of its visualisation or table node; null when it has none the engine reads. */
export const sourceOf = (query: JsonObject | null): QueryNode | null => {
  const source = query?.['source']
  return isObject(source) ? parseQueryNode(source) : null
}

/**
 * Insights' results from the query service: the insight's source query run under the read's
 * refresh mode, with the cache's fields. A query the engine refuses, or a moment when too many
 * queries run, gives no result and a `query_status` that says why, as PostHog's newest insight
 * API does, so one insight never fails a dashboard.
 */
export const queriedInsightResults = (models: ReadModels): InsightResults => (environment, insight, refresh) =>
  resultsOfSource(insight, notComputedResults(environment, insight, refresh), async (node, fallback) =>
    resultFieldsOf((await queryServiceOf(models).answer(environment, node, refresh)).body, fallback))

/**
 * Runs `run` on an insight's source query, with `fallback`'s results (`notComputedResults`) for
 * an insight without one; a query the engine refuses, when it is parsed or run, gives the
 * fallback with a `query_status` saying why.
 */
export const resultsOfSource = async (
  insight: { readonly query: unknown }, fallback: Promise<InsightResultFields>,
  run: (node: QueryNode, fallback: InsightResultFields) => Promise<InsightResultFields>,
): Promise<InsightResultFields> => {
  const known = await fallback
  try {
    const node = sourceOf(insight.query as JsonObject | null)
    return node === null ? known : await run(node, known)
  } catch (error) {
    return failedResults(known, error)
  }
}

/** An insight's result fields from a query's answer (its body, with the cache's fields when it has them). */
export const resultFieldsOf = (body: JsonObject, fallback: InsightResultFields): InsightResultFields => {
  const range = body['resolved_date_range']
  return {
    result: body['results'] ?? null,
    hasMore: typeof body['hasMore'] === 'boolean' ? body['hasMore'] : null,
    columns: orNull(body['columns'], isArray),
    types: orNull(body['types'], isArray),
    hogql: null,
    last_refresh: orNull(body['last_refresh'], isString),
    cache_target_age: orNull(body['cache_target_age'], isString),
    next_allowed_client_refresh: orNull(body['next_allowed_client_refresh'], isString),
    is_cached: body['is_cached'] === true,
    query_status: orNull(body['query_status'], isObject),
    timezone: typeof body['timezone'] === 'string' ? body['timezone'] : fallback.timezone,
    resolved_date_range: isObject(range) ? range as InsightResultFields['resolved_date_range'] : null,
    filters_hash: typeof body['cache_key'] === 'string' ? body['cache_key'] : fallback.filters_hash,
  }
}

/** The results of a query the engine refused: none, and a `query_status` that says why. Other errors are thrown. */
export const failedResults = (fallback: InsightResultFields, error: unknown): InsightResultFields => {
  if (!(error instanceof DomainError)) throw error
  return { ...fallback, query_status: { error: true, complete: true, error_message: error.message, query_async: false } }
}
