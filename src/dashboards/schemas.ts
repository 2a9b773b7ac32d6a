import { z } from 'zod'
import { BasicUserResponse } from '../accounts/users.js'
import { drfBoolean, drfInteger, drfRefusal } from '../http/drf.js'
import { paginatedResponse } from '../http/pagination.js'
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

const TextCardResponse = z.object({
  id: z.number(),
  body: z.string(),
  created_by: BasicUserResponse.nullable(),
  last_modified_at: z.string(),
  last_modified_by: BasicUserResponse.nullable(),
  team: z.number(),
})

/** A tile as PostHog answers it: a text card, or an insight as the insights API shows it. */
export const TileResponse = z.object({
  id: z.number(),
  dashboard_id: z.number(),
  // A live insight's shape is frozen and shared by every read of one answer: its text is written once.
  insight: z.unknown().meta({ kept: true }),
  text: TextCardResponse.nullable(),
  color: z.string().nullable(),
  layouts: z.unknown(),
  show_description: z.boolean().nullable(),
  transparent_background: z.boolean().nullable(),
  order: z.number(),
  last_refresh: z.string().nullable(),
  is_cached: z.boolean(),
}).meta({ kept: true })

/** The list item: no tiles, no filters. */
export const DashboardBasicResponse = z.object({
  id: z.number(),
  name: z.string().nullable(),
  description: z.string(),
  pinned: z.boolean(),
  created_at: z.string(),
  created_by: BasicUserResponse.nullable(),
  last_accessed_at: z.null(),
  is_shared: z.boolean(),
  deleted: z.boolean(),
  creation_mode: z.string(),
  tags: z.array(z.string()),
  restriction_level: z.number(),
  effective_restriction_level: z.number(),
  effective_privilege_level: z.number(),
  user_access_level: z.enum(['editor', 'viewer']),
  access_control_version: z.enum(['v1', 'v2']),
  team_id: z.number(),
})

export const DashboardListResponse = paginatedResponse(DashboardBasicResponse)

export const DashboardDetailResponse = DashboardBasicResponse.extend({
  filters: z.unknown(),
  variables: z.unknown(),
  tiles: z.array(TileResponse),
}).meta({ kept: true })

/** A shared dashboard's public fields. */
export const SharedDashboardResponse = z.object({
  id: z.number(),
  name: z.string().nullable(),
  description: z.string(),
  created_at: z.string(),
  filters: z.unknown(),
  variables: z.unknown(),
  tags: z.array(z.string()),
  tiles: z.array(TileResponse),
  effective_restriction_level: z.number(),
  effective_privilege_level: z.number(),
})

/** What `/shared/{token}` shows: a shared dashboard, or a shared insight as the insights resource writes it. */
export const SharedViewResponse = z.object({
  dashboard: SharedDashboardResponse.optional(),
  insight: z.unknown().optional(),
})

export const CollaboratorResponse = z.object({
  id: z.string(),
  dashboard_id: z.number(),
  user: BasicUserResponse.nullable(),
  level: z.number(),
  added_at: z.string(),
  updated_at: z.string(),
  user_uuid: z.string(),
})

/** A dashboard's collaborators: a plain array, as PostHog answers it. */
export const CollaboratorListResponse = z.array(CollaboratorResponse)

export const SharingResponse = z.object({
  created_at: z.string().nullable(),
  enabled: z.boolean(),
  access_token: z.string(),
})
