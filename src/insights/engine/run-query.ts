import { assertNever } from '../../kernel/errors.js'
import { QueryRefused } from '../errors.js'
import { runActors, type ActorsResponse } from '../actors/run-actors.js'
import { runFunnels, type FunnelsResponse } from '../funnels/run-funnels.js'
import { runRetention, type RetentionResponse } from '../retention/run-retention.js'
import { runEventsQuery, type EventsQueryResponse } from '../events-query/run-events-query.js'
import { runLifecycle, type LifecycleResponse } from '../lifecycle/run-lifecycle.js'
import type { QueryNode } from '../schema/query-node.js'
import { runStickiness, type StickinessResponse } from '../stickiness/run-stickiness.js'
import { runTrends, type TrendsResponse } from '../trends/run-trends.js'
import type { QueryInput, QuerySource } from './data.js'

export type QueryResponse = TrendsResponse | StickinessResponse | LifecycleResponse | FunnelsResponse | RetentionResponse | EventsQueryResponse | ActorsResponse

/**
 * Runs a validated query node against a store: the insights, events queries, and the actors
 * behind an insight's data point (an InsightActorsQuery alone runs as an ActorsQuery with the
 * default columns). HogQL queries validate but are refused with a 400.
 */
export const runQuery = (node: QueryNode, input: QueryInput, source: QuerySource): Promise<QueryResponse> => {
  switch (node.kind) {
    case 'TrendsQuery': return runTrends(node, input, source)
    case 'StickinessQuery': return runStickiness(node, input, source)
    case 'LifecycleQuery': return runLifecycle(node, input, source)
    case 'HogQLQuery': throw new QueryRefused('HogQL queries are not supported: Hedgelog does not run HogQL.', 'unsupported_query', 'kind')
    case 'FunnelsQuery': return runFunnels(node, input, source)
    case 'RetentionQuery': return runRetention(node, input, source)
    case 'EventsQuery': return runEventsQuery(node, input, source)
    case 'ActorsQuery': return runActors(node, input, source)
    case 'InsightActorsQuery': return runActors({ kind: 'ActorsQuery', source: node }, input, source)
    default: return assertNever(node)
  }
}
