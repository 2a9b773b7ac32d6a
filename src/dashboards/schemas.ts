import { z } from 'zod'
import { drfBoolean, drfInteger } from '../http/drf.js'
import { type JsonObject, isJsonObject } from '../eventlog/port.js'

const filters = z.custom<JsonObject>(isJsonObject, { error: 'Filters must be a dictionary' })
const restrictionLevel = z.preprocess(
  (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
  z.literal([21, 37]),
)

/** Fields both create and PATCH accept; anything else in the body is ignored, as PostHog ignores it. */
const dashboardFields = {
  name: z.string().max(400).nullable().optional(),
  description: z.string().optional(),
  pinned: drfBoolean.optional(),
  deleted: drfBoolean.optional(),
  tags: z.array(z.string()).optional(),
  restriction_level: restrictionLevel.optional(),
  filters: filters.optional(),
  delete_insights: drfBoolean.optional(),
}

export const createDashboardBody = z.object({
  ...dashboardFields,
  use_template: z.string().optional(),
  use_dashboard: drfInteger.nullable().optional(),
  duplicate_tiles: drfBoolean.optional(),
})

const tileInput = z.object({
  id: drfInteger.optional(),
  text: z.object({ body: z.string().max(4000) }).optional(),
  color: z.string().nullable().optional(),
  layouts: z.custom<JsonObject>(isJsonObject, { error: 'Layouts must be a dictionary' }).optional(),
  deleted: drfBoolean.optional(),
  show_description: drfBoolean.nullable().optional(),
  transparent_background: drfBoolean.nullable().optional(),
})
export type TileInput = z.output<typeof tileInput>

export const updateDashboardBody = z.object({ ...dashboardFields, tiles: z.array(tileInput).optional() })

export const moveTileBody = z.object({
  tile: z.object({ id: drfInteger }),
  toDashboard: drfInteger,
})

export const dashboardParams = z.object({ project_id: z.string(), id: z.string() })

/** Tags are trimmed and lower-cased, without duplicates or blanks. */
export const normaliseTags = (tags: readonly string[]): string[] =>
  [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter((tag) => tag !== ''))].sort()
