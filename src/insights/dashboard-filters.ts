import { isJsonObject, type JsonObject } from '../eventlog/port.js'

/** Nodes that show another query: the filters go to their `source`. */
const WRAPPERS = new Set(['InsightVizNode', 'DataTableNode', 'DataVisualizationNode'])

/** Queries with `dateRange` and `properties` of their own (PostHog's `InsightsQueryBase`). */
const INSIGHT_QUERIES = new Set(['TrendsQuery', 'FunnelsQuery', 'RetentionQuery', 'PathsQuery', 'StickinessQuery', 'LifecycleQuery'])

/** Python's truthiness, which decides in PostHog whether a filter is set: an empty text or list is not. */
const isSet = (value: unknown): boolean =>
  value !== undefined && value !== null && value !== '' && value !== false && !(Array.isArray(value) && value.length === 0)

const propertiesOf = (filters: JsonObject): unknown[] | null => {
  const properties = filters['properties']
  return Array.isArray(properties) && properties.length > 0 ? properties : null
}

const andGroup = (values: unknown): JsonObject => ({ type: 'AND', values })

/** The query's own properties and the dashboard's, both required: a list becomes an AND group, a group stays as it is. */
const bothProperties = (own: unknown, added: unknown[]): unknown => {
  if (!isSet(own)) return added
  const first = isJsonObject(own) ? own : andGroup(own ?? [])
  return { type: 'AND', values: [first, andGroup(added)] }
}

const overInsightQuery = (query: JsonObject, filters: JsonObject, dated: boolean, properties: unknown[] | null): JsonObject => {
  const next: JsonObject = { ...query }
  if (properties) next['properties'] = bothProperties(query['properties'], properties)
  if (dated) {
    const range = isJsonObject(query['dateRange']) ? query['dateRange'] : {}
    next['dateRange'] = { ...range, date_from: filters['date_from'] ?? null, date_to: filters['date_to'] ?? null }
  }
  return next
}

// Events and HogQL queries add the dashboard's properties to their list instead of grouping them.
const overEventsQuery = (query: JsonObject, filters: JsonObject, dated: boolean, properties: unknown[] | null): JsonObject => {
  const next: JsonObject = { ...query }
  if (properties) next['properties'] = [...(Array.isArray(query['properties']) ? query['properties'] : []), ...properties]
  if (dated) {
    next['after'] = filters['date_from'] ?? null
    next['before'] = filters['date_to'] ?? null
  }
  return next
}

const overHogQLQuery = (query: JsonObject, filters: JsonObject, dated: boolean, properties: unknown[] | null): JsonObject => {
  const own = isJsonObject(query['filters']) ? query['filters'] : {}
  const next: JsonObject = { ...own }
  if (properties) next['properties'] = [...(Array.isArray(own['properties']) ? own['properties'] : []), ...properties]
  if (dated) {
    const range = isJsonObject(own['dateRange']) ? own['dateRange'] : {}
    next['dateRange'] = { ...range, date_from: filters['date_from'] ?? null, date_to: filters['date_to'] ?? null }
  }
  return { ...query, filters: next }
}

/**
 * A query node with a dashboard's filters laid over it, as PostHog's `apply_dashboard_filters`
 * does: a set `date_from` or `date_to` replaces both ends of the query's date range, and the
 * dashboard's `properties` must hold as well as the query's own. Wrappers pass the filters to
 * their source; kinds without a date range or properties are returned as they are. Pure: the
 * node given is not changed.
 */
export const withDashboardFilters = (node: JsonObject, filters: JsonObject): JsonObject => {
  const dated = isSet(filters['date_from']) || isSet(filters['date_to'])
  const properties = propertiesOf(filters)
  if (!dated && properties === null) return node
  const kind = node['kind']
  if (typeof kind !== 'string') return node
  if (WRAPPERS.has(kind)) return isJsonObject(node['source']) ? { ...node, source: withDashboardFilters(node['source'], filters) } : node
  if (INSIGHT_QUERIES.has(kind)) return overInsightQuery(node, filters, dated, properties)
  if (kind === 'EventsQuery') return overEventsQuery(node, filters, dated, properties)
  if (kind === 'HogQLQuery') return overHogQLQuery(node, filters, dated, properties)
  return node
}

/** An insight as a dashboard shows it: its query with the dashboard's filters over it (legacy filter-only insights unchanged). */
export const underDashboardFilters = <I extends { query: JsonObject | null }>(insight: I, filters: JsonObject): I =>
  isJsonObject(insight.query) ? { ...insight, query: withDashboardFilters(insight.query, filters) } : insight
