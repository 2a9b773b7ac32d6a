import { z } from 'zod'
import { QueryParseError } from '../errors.js'
import { FunnelsQuery, LifecycleQuery, RetentionQuery, StickinessQuery, TrendsQuery } from './insight-queries.js'
import { ActorsQuery, EventsQuery, HogQLQuery, InsightActorsQuery } from './other-queries.js'
import { pydanticText } from './pydantic-text.js'

const NODES = { TrendsQuery, StickinessQuery, LifecycleQuery, FunnelsQuery, RetentionQuery, EventsQuery, ActorsQuery, InsightActorsQuery, HogQLQuery } as const

export type QueryKind = keyof typeof NODES
export const QUERY_KINDS = Object.keys(NODES) as QueryKind[]

export const QueryNode = z.discriminatedUnion('kind', [TrendsQuery, StickinessQuery, LifecycleQuery, FunnelsQuery, RetentionQuery, EventsQuery, ActorsQuery, InsightActorsQuery, HogQLQuery])
export type QueryNode = z.infer<typeof QueryNode>

const isKind = (kind: unknown): kind is QueryKind => typeof kind === 'string' && Object.hasOwn(NODES, kind)

/**
 * Validates a `query` node of a query request, throwing QueryParseError (400, PostHog's
 * `parse_error` body) with a detail that names each failing field, as pydantic's text does.
 */
export const parseQueryNode = (input: unknown): QueryNode => {
  const kind = typeof input === 'object' && input !== null ? (input as { kind?: unknown }).kind : undefined
  if (!isKind(kind)) {
    const known = QUERY_KINDS.join(', ')
    throw new QueryParseError(kind === undefined ? `Field required: query.kind (one of ${known}).` : `Unknown query kind ${JSON.stringify(kind)}: expected one of ${known}.`)
  }
  const result = QueryNode.safeParse(input, { reportInput: true })
  if (!result.success) throw new QueryParseError(pydanticText(result.error, kind))
  return result.data
}
