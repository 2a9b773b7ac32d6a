import type { JsonObject } from '../eventlog/port.js'
import { DomainError } from '../kernel/errors.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { InsightDocument } from '../insights/document.js'
import { MAX_LIMIT } from '../insights/events-query/events-query-plan.js'
import { queryServiceOf, TooManyQueries } from '../insights/query/query-service.js'
import type { InsightResults } from '../insights/results.js'
import { parseQueryNode, type QueryNode } from '../insights/schema/query-node.js'
import { csvRowSource, type TabularAnswer } from './csv-rows.js'
import { csvBytes } from './csv-text.js'
import { notSupportedForResource } from './errors.js'

/** Rows a CSV export holds at most: PostHog's `CSV_EXPORT_LIMIT`, also its default limit for an exported events query. */
export const CSV_EXPORT_LIMIT = 300_000

/** The row PostHog writes when an answer gives no rows. */
const NO_DATA = { error: 'No data available or unable to format for export.' }

export interface CsvDeps {
  readonly models: ReadModels
  readonly insightResults: InsightResults
}

/** Drawn content, or why it could not be drawn (PostHog records that as the export's `exception`). */
export type Rendered = { readonly content: Buffer; readonly exception: null } | { readonly content: null; readonly exception: string }

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value)

/** The query an export context names: its `source`, unwrapped from a table or visualisation node. */
export const contextQuery = (context: JsonObject | null): QueryNode | null => {
  let source = context?.['source']
  while (isObject(source) && (source['kind'] === 'DataTableNode' || source['kind'] === 'InsightVizNode') && isObject(source['source'])) {
    source = source['source']
  }
  return isObject(source) ? parseQueryNode(source) : null
}

const breakdownFilterOf = (node: unknown): JsonObject | null => {
  const filter = isObject(node) ? node['breakdownFilter'] : null
  return isObject(filter) ? filter : null
}

/**
 * An events query's rows, as many as it asks for up to the export limit (PostHog's export
 * context raises its limit to `CSV_EXPORT_LIMIT` when it asks for none), read a page of the
 * engine's largest at a time.
 */
const eventsAnswer = async (models: ReadModels, environment: Environment, node: Extract<QueryNode, { kind: 'EventsQuery' }>): Promise<TabularAnswer> => {
  const wanted = Math.min(node.limit ?? CSV_EXPORT_LIMIT, CSV_EXPORT_LIMIT)
  const rows: unknown[] = []
  let columns: unknown[] | null = null
  let types: unknown[] | null = null
  let offset = node.offset ?? 0
  while (rows.length < wanted) {
    const limit = Math.min(MAX_LIMIT, wanted - rows.length)
    const { body } = await queryServiceOf(models).answer(environment, { ...node, limit, offset }, 'force_blocking')
    const page = Array.isArray(body['results']) ? body['results'] : []
    columns = Array.isArray(body['columns']) ? body['columns'] : columns
    types = Array.isArray(body['types']) ? body['types'] : types
    rows.push(...page)
    if (body['hasMore'] !== true || page.length === 0) break
    offset += page.length
  }
  return { results: rows, columns, types }
}

/** A query's answer, computed now (PostHog exports with `CALCULATE_BLOCKING_ALWAYS`). */
const queryAnswer = async (models: ReadModels, environment: Environment, node: QueryNode): Promise<TabularAnswer> => {
  if (node.kind === 'EventsQuery') return eventsAnswer(models, environment, node)
  const { body } = await queryServiceOf(models).answer(environment, node, 'force_blocking')
  return { results: body['results'], columns: body['columns'] as unknown[] | null, types: body['types'] as unknown[] | null }
}

const headerOf = (context: JsonObject | null): string[] | null => {
  const columns = context?.['columns']
  return Array.isArray(columns) && columns.every((column) => typeof column === 'string') ? columns as string[] : null
}

const written = async (answer: TabularAnswer, breakdownFilter: JsonObject | null, context: JsonObject | null): Promise<Rendered> => {
  const rows = csvRowSource(answer, breakdownFilter)
  const content = rows.items.length > 0
    ? await csvBytes(rows.items, rows.row, headerOf(context))
    : await csvBytes([NO_DATA], () => NO_DATA, headerOf(context))
  return { content, exception: null }
}

/** A failure of the query becomes the export's exception; being throttled is not a failure of the export and is answered as it is. */
const recorded = (error: unknown): Rendered => {
  if (!(error instanceof DomainError) || error instanceof TooManyQueries) throw error
  return { content: null, exception: error.message }
}

/**
 * A CSV export's content: the query of `export_context.source` when there is one, else the
 * insight's results (its query run now when its cached result is stale). Anything else (a
 * dashboard alone, a context without a query) PostHog cannot export either.
 */
export const renderCsv = async (
  deps: CsvDeps, environment: Environment, insight: InsightDocument | null, context: JsonObject | null,
): Promise<Rendered> => {
  const node = contextQuery(context)
  if (node !== null) {
    try {
      return await written(await queryAnswer(deps.models, environment, node), breakdownFilterOf(node), context)
    } catch (error) {
      return recorded(error)
    }
  }
  if (insight === null) throw notSupportedForResource()
  const results = await deps.insightResults(environment, insight, 'blocking')
  const status = results.query_status
  if (status && status['error'] === true) return { content: null, exception: String(status['error_message'] ?? 'The query failed.') }
  const answer = { results: results.result, columns: results.columns, types: results.types }
  return written(answer, breakdownFilterOf(insight.query?.['source']), context)
}
