import type { ChartInput } from '../charts/chart-input.js'
import { chartInputOf } from '../charts/insight-chart.js'
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
  /** What its picture is drawn from: the result with its display, range and timezone. */
  readonly chart: ChartInput
}

const sourceKind = (query: unknown): string | null => {
  const source = query !== null && typeof query === 'object' ? (query as JsonObject)['source'] : undefined
  const kind = source !== null && typeof source === 'object' ? (source as JsonObject)['kind'] : undefined
  return typeof kind === 'string' ? kind : null
}

/** The report of one insight: its query run now (a fresh cached result serves), its result tabled by its kind. */
export const insightReport = async (
  insight: Insight, environment: Environment, results: InsightResults, base: string,
): Promise<InsightReport> => {
  const computed = await results(environment, insight, 'blocking')
  const kind = sourceKind(insight.query)
  const status = computed.query_status as { error?: unknown; error_message?: unknown } | null
  const name = insight.name ?? insight.derived_name ?? 'Untitled'
  return {
    id: insight.id,
    short_id: insight.short_id,
    name,
    url: `${base}/project/${insight.environment_id}/insights/${insight.short_id}`,
    kind,
    last_refresh: computed.last_refresh,
    result: computed.result,
    table: resultTable(kind, computed.result),
    error: status?.error === true ? String(status.error_message ?? 'the query failed') : null,
    chart: chartInputOf({ name, query: insight.query, result: computed.result, timezone: computed.timezone, resolved_date_range: computed.resolved_date_range }),
  }
}
