import { DEFAULT_CHART_SIZE } from '../charts/chart-input.js'
import { chartInputOf } from '../charts/insight-chart.js'
import { drawChartPng } from '../charts/chart-pool.js'
import type { Environment } from '../readstore/environment.js'
import type { InsightDocument } from '../insights/document.js'
import type { Rendered } from './csv-export.js'
import type { ExportDeps } from './deps.js'

/**
 * An insight's chart as a PNG of the default picture size, drawn from its results (its query
 * run now when the cached result is stale). A query that fails gives no picture and the failure
 * as the export's exception, as PostHog's exporter records one.
 */
export const renderPicture = async (deps: ExportDeps, environment: Environment, insight: InsightDocument): Promise<Rendered> => {
  const results = await deps.insightResults(environment, insight, 'blocking')
  const status = results.query_status
  if (status && status['error'] === true) return { content: null, exception: String(status['error_message'] ?? 'The query failed.') }
  const input = chartInputOf({ ...insight, ...results })
  return { content: await drawChartPng(input, DEFAULT_CHART_SIZE), exception: null }
}
