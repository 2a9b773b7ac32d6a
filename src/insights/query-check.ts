import { z } from 'zod'
import type { JsonObject } from '../eventlog/port.js'
import { DomainError } from '../kernel/errors.js'

/**
 * An insight `query` that is not one of the nodes an insight holds. PostHog's request parser
 * refuses it with a ParseError, which its error renderer shows as `invalid_request` /
 * `parse_error` with the validation text as the detail.
 */
export class InsightQueryInvalid extends DomainError {
  override name = 'InsightQueryInvalid'
  constructor(detail: string) {
    super(400, 'invalid_request', 'parse_error', detail)
  }
}

/** The node kinds an insight's `query` may be. */
export const INSIGHT_QUERY_KINDS = ['InsightVizNode', 'DataTableNode', 'DataVisualizationNode', 'HogQuery'] as const

const required = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'Field required' : what)

/** A node another node wraps: an object with a string `kind`; its own fields are the engine's to check. */
const SourceNode = z.looseObject(
  { kind: z.string({ error: required('Input should be a valid string') }) },
  { error: required('Input should be a valid dictionary') },
)

/** The outer node of an insight's query, with the source it wraps. */
export const InsightQuery = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('InsightVizNode'), source: SourceNode }),
  z.looseObject({ kind: z.literal('DataTableNode'), source: SourceNode }),
  z.looseObject({ kind: z.literal('DataVisualizationNode'), source: SourceNode }),
  z.looseObject({ kind: z.literal('HogQuery'), code: z.string({ error: 'Input should be a valid string' }).nullable().optional() }),
], { error: `Input tag should be ${INSIGHT_QUERY_KINDS.map((kind) => `'${kind}'`).join(', ')}` })

/** The issues of a failed check, as pydantic words a ValidationError: a count line, then each location and message. */
const validationText = (error: z.ZodError, model: string): string => {
  const count = error.issues.length
  const lines = [`${count} validation error${count === 1 ? '' : 's'} for ${model}`]
  for (const issue of error.issues) lines.push(['query', ...issue.path.map(String)].join('.'), `  ${issue.message}`)
  return lines.join('\n')
}

const parsedJson = (value: unknown): unknown => {
  // Form bodies carry JSON fields as text, which DRF's JSONField reads as JSON.
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value)
  } catch {
    throw new InsightQueryInvalid('Value must be valid JSON.')
  }
}

/**
 * An insight's `query` as it will be stored: exactly the object given, once it is known to be a
 * node an insight holds (null or absent stays null). The source node inside is checked only for
 * a `kind`; the query engine's schema of each source kind is the place for its fields.
 */
export const validateInsightQuery = (value: unknown): JsonObject | null => {
  const query = parsedJson(value)
  if (query === null || query === undefined) return null
  const model = typeof query === 'object' && !Array.isArray(query) && typeof (query as JsonObject)['kind'] === 'string'
    ? String((query as JsonObject)['kind'])
    : 'InsightQuery'
  const checked = InsightQuery.safeParse(query)
  if (!checked.success) throw new InsightQueryInvalid(validationText(checked.error, model))
  return query as JsonObject
}
