import { z } from 'zod'
import { drfBoolean, drfInteger, drfRefusal } from '../http/drf.js'
import { type JsonObject, isJsonObject } from '../eventlog/port.js'
import {
  MAX_COLOR_LENGTH, MAX_DESCRIPTION_LENGTH, MAX_FILTERS_BYTES, MAX_LAYOUTS_BYTES, MAX_NAME_LENGTH, MAX_TEXT_BODY_LENGTH, MAX_TILES,
  TEXT_BODY_TOO_LONG, TOO_MANY_TILES, tooLargeMessage, tooLongMessage, withinBytes, withinLength,
} from './limits.js'

/** A string of at most `max` characters, refused as DRF's CharField refuses a longer one. */
const text = (max: number, message = tooLongMessage(max), attr?: string) =>
  z.string().refine(withinLength(max), drfRefusal(message, 'max_length', attr))

/** A JSON object whose text is at most `max` bytes as PostHog measures it. */
const object = (error: string, max: number, attr?: string) =>
  z.custom<JsonObject>(isJsonObject, { error }).refine(withinBytes(max), drfRefusal(tooLargeMessage(max), 'invalid_input', attr))

const filters = object('Filters must be a dictionary', MAX_FILTERS_BYTES)
const restrictionLevel = z.preprocess(
  (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
  z.literal([21, 37]),
)

/** Fields both create and PATCH accept; anything else in the body is ignored, as PostHog ignores it. */
const dashboardFields = {
  name: text(MAX_NAME_LENGTH).nullable().optional(),
  description: text(MAX_DESCRIPTION_LENGTH).optional(),
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
  text: z.object({ body: text(MAX_TEXT_BODY_LENGTH, TEXT_BODY_TOO_LONG, 'text__body') }).optional(),
  color: text(MAX_COLOR_LENGTH, tooLongMessage(MAX_COLOR_LENGTH), 'color').nullable().optional(),
  layouts: object('Layouts must be a dictionary', MAX_LAYOUTS_BYTES, 'layouts').optional(),
  deleted: drfBoolean.optional(),
  show_description: drfBoolean.nullable().optional(),
  transparent_background: drfBoolean.nullable().optional(),
})
export type TileInput = z.output<typeof tileInput>

const tiles = z.array(tileInput).refine((list) => list.length <= MAX_TILES, drfRefusal(TOO_MANY_TILES))

export const updateDashboardBody = z.object({ ...dashboardFields, tiles: tiles.optional() })

export const moveTileBody = z.object({
  tile: z.object({ id: drfInteger }),
  toDashboard: drfInteger,
})

export const dashboardParams = z.object({ project_id: z.string(), id: z.string() })

/** Tags are trimmed and lower-cased, without duplicates or blanks. */
export const normaliseTags = (tags: readonly string[]): string[] =>
  [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter((tag) => tag !== ''))].sort()
