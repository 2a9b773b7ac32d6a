import type { JsonObject } from '../eventlog/port.js'
import { resultTable, type ResultTable } from '../insights/result-table.js'
import type { InsightResults } from '../insights/results.js'
import type { Insight } from '../insights/state.js'
import type { Environment } from '../readstore/environment.js'

/** Insights a dashboard's delivery carries at most, as PostHog's do. */
export const MAX_DELIVERED_INSIGHTS = 6

/** One insight in a delivery: where to open it and its result, as numbers and as a table. */
export interface InsightReport {
  readonly id: number
  readonly short_id: string
  readonly name: string
  readonly url: string
  /** The kind of its query (`TrendsQuery`, `FunnelsQuery`…), null for a query the engine does not run. */
  readonly kind: string | null
  readonly last_refresh: string | null
  readonly result: unknown
  readonly table: ResultTable | null
  /** Why there is no result, when the query could not run. */
  readonly error: string | null
  /** The display its query asks for (`trendsFilter.display`, `funnelsFilter.funnelVizType`); null for the kind's default. */
  readonly display: string | null
  /** The range the result counts, as the query reported it; null when it has none. */
  readonly date_range: { readonly date_from: string; readonly date_to: string } | null
  /** The environment's timezone the result was counted in. */
  readonly timezone: string
}

const objectOf = (value: unknown): JsonObject | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value as JsonObject : null

const sourceOf = (query: unknown): JsonObject | null => objectOf(objectOf(query)?.['source'])

const sourceKind = (query: unknown): string | null => {
  const kind = sourceOf(query)?.['kind']
  return typeof kind === 'string' ? kind : null
}

/** The display the source asks for: a funnel's `funnelsFilter.funnelVizType`, else `<kind>Filter.display` (`trendsFilter.display`…). */
const sourceDisplay = (query: unknown): string | null => {
  const source = sourceOf(query)
  const kind = typeof source?.['kind'] === 'string' ? source['kind'] : ''
  if (!source || !kind.endsWith('Query')) return null
  const filter = objectOf(source[`${kind.charAt(0).toLowerCase()}${kind.slice(1, -'Query'.length)}Filter`])
  const display = kind === 'FunnelsQuery' ? filter?.['funnelVizType'] : filter?.['display']
  return typeof display === 'string' ? display : null
}

/** The report of one insight: its query run now (a fresh cached result serves), its result tabled by its kind. */
export const insightReport = async (
  insight: Insight, environment: Environment, results: InsightResults, base: string,
): Promise<InsightReport> => {
  const computed = await results(environment, insight, 'blocking')
  const kind = sourceKind(insight.query)
  const status = computed.query_status as { error?: unknown; error_message?: unknown } | null
  return {
    id: insight.id,
    short_id: insight.short_id,
    name: insight.name ?? insight.derived_name ?? 'Untitled',
    url: `${base}/project/${insight.environment_id}/insights/${insight.short_id}`,
    kind,
    last_refresh: computed.last_refresh,
    result: computed.result,
    table: resultTable(kind, computed.result),
    error: status?.error === true ? String(status.error_message ?? 'the query failed') : null,
    display: sourceDisplay(insight.query),
    date_range: computed.resolved_date_range,
    timezone: computed.timezone,
  }
}
