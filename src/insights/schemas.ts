import { z } from 'zod'
import { isJsonObject, type JsonObject } from '../eventlog/port.js'
import { drfBoolean, drfInteger, drfRefusal } from '../http/drf.js'
import { tooLongMessage, withinLength } from '../dashboards/limits.js'
import { MAX_TEXT_LENGTH } from './decider.js'

const text = z.string().refine(withinLength(MAX_TEXT_LENGTH), drfRefusal(tooLongMessage(MAX_TEXT_LENGTH), 'max_length'))

/** Form bodies carry JSON fields as text, which DRF's JSONField reads as JSON; text that is not JSON is refused. */
const jsonText = (value: unknown, context: z.RefinementCtx): unknown => {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value)
  } catch {
    context.addIssue({ code: 'custom', message: 'Value must be valid JSON.', params: { drfCode: 'invalid_input' } })
    return z.NEVER
  }
}

const filters = z.preprocess(jsonText, z.custom<JsonObject>(isJsonObject, { error: 'Filters must be a dictionary' }))

/** Dashboard ids, as DRF's many-related primary key field reads them. */
const dashboardIds = z.array(drfInteger, { error: 'Expected a list of items.' })

/**
 * Fields create and PATCH accept; anything else is ignored, as PostHog ignores read-only and
 * unknown fields. `query` is checked by `validateInsightQuery`, which answers PostHog's
 * `parse_error` rather than a field error.
 */
const insightFields = {
  name: text.nullable().optional(),
  derived_name: text.nullable().optional(),
  description: text.nullable().optional(),
  query: z.unknown().optional(),
  filters: filters.optional(),
  order: drfInteger.nullable().optional(),
  tags: z.array(z.string()).optional(),
  favorited: drfBoolean.optional(),
  saved: drfBoolean.optional(),
  deleted: drfBoolean.optional(),
  dashboards: dashboardIds.optional(),
}

export const insightBody = z.object(insightFields)
export type InsightBody = z.output<typeof insightBody>

export const sharingBody = z.object({ enabled: drfBoolean })
