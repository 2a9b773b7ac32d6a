import { z } from 'zod'
import { QueryParseError } from '../errors.js'
import { pydanticText } from '../schema/pydantic-text.js'
import { parseQueryNode, type QueryNode } from '../schema/query-node.js'
import { Properties } from '../schema/property-filters.js'
import { refreshModeOf, type RefreshMode } from './refresh.js'

/** The body of `POST …/query/` around its node: how to run it and what to lay over it. */
const QueryRequestFields = z.looseObject({
  query: z.unknown().optional(),
  refresh: z.union([z.string(), z.boolean()]).nullable().optional(),
  async: z.boolean().nullable().optional(),
  client_query_id: z.string().min(1).max(200).nullable().optional(),
  name: z.string().max(128).nullable().optional(),
  filters_override: z.looseObject({
    date_from: z.string().nullable().optional(),
    date_to: z.string().nullable().optional(),
    explicitDate: z.boolean().nullable().optional(),
    properties: Properties,
    breakdown_filter: z.looseObject({}).nullable().optional(),
  }).nullable().optional(),
  variables_override: z.unknown().optional(),
})

export interface QueryRequest {
  readonly node: QueryNode
  readonly mode: RefreshMode
  readonly clientQueryId: string | undefined
}

type Override = NonNullable<z.infer<typeof QueryRequestFields>['filters_override']>

/** The node with a request's `filters_override` laid over it: its dates replace, its properties add. */
const withOverride = (query: unknown, override: Override | null | undefined): unknown => {
  if (!override || typeof query !== 'object' || query === null) return query
  const node = { ...(query as Record<string, unknown>) }
  const dates = Object.fromEntries(Object.entries({ date_from: override.date_from, date_to: override.date_to, explicitDate: override.explicitDate })
    .filter(([, value]) => value !== undefined && value !== null))
  if (Object.keys(dates).length > 0) node['dateRange'] = { ...(node['dateRange'] as object | undefined), ...dates }
  if (Array.isArray(override.properties) && override.properties.length > 0) {
    const own = node['properties']
    node['properties'] = Array.isArray(own) || own === undefined || own === null
      ? [...((own as unknown[] | null | undefined) ?? []), ...override.properties]
      : { type: 'AND', values: [own, { type: 'AND', values: override.properties }] }
  }
  if (override.breakdown_filter) node['breakdownFilter'] = override.breakdown_filter
  return node
}

/**
 * A query request as PostHog's endpoint reads it: the node validated (400 `parse_error` naming
 * what failed), `refresh` (default `blocking`; `force_cache` means `blocking` here; the old
 * `async: true` means `async`) and the overrides applied before validation.
 */
export const readQueryRequest = (body: unknown): QueryRequest => {
  const fields = QueryRequestFields.safeParse(body ?? {}, { reportInput: true })
  if (!fields.success) throw new QueryParseError(pydanticText(fields.error, 'QueryRequest'))
  const { query, refresh, async, client_query_id: clientQueryId, filters_override: override } = fields.data
  if (query === undefined || query === null) throw new QueryParseError('1 validation error for QueryRequest\nquery\n  Field required')
  const node = parseQueryNode(withOverride(query, override))
  let mode = refreshModeOf(refresh, async === true ? 'async' : 'blocking')
  if (mode === 'force_cache') mode = 'blocking'
  return { node, mode, clientQueryId: clientQueryId ?? undefined }
}
