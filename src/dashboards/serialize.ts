import type { z } from 'zod'
import { apiTime } from '../http/timestamps.js'
import type { BasicUser } from '../accounts/users.js'
import { KeptShapes } from '../kernel/kept-shapes.js'
import { tileInsight, type Tile } from './events.js'
import { canEdit, effectivePrivilegeLevel, effectiveRestrictionLevel, type Actor } from './permissions.js'
import type {
  CollaboratorResponse, DashboardBasicResponse, DashboardDetailResponse, SharedDashboardResponse, SharingResponse, TileResponse,
} from './schemas.js'
import type { Dashboard } from './state.js'

type Users = ReadonlyMap<string, BasicUser>

/** What an insight tile shows: its insight as the insights API shows it, and the tile's refresh state. */
export interface TileInsight {
  readonly insight: object
  readonly last_refresh: string | null
  readonly is_cached: boolean
}

/** The insights of a dashboard's tiles, by tile id; a tile whose insight is deleted or missing has none, and is not shown. */
export type TileInsights = ReadonlyMap<number, TileInsight>

export const NO_TILE_INSIGHTS: TileInsights = new Map()

/** Every user a dashboard's response mentions. */
export const usersMentioned = (dashboard: Dashboard): string[] => {
  const users = [dashboard.created_by]
  for (const collaborator of dashboard.collaborators) users.push(collaborator.user_uuid)
  for (const { text } of dashboard.tiles) {
    if (!text) continue
    if (text.created_by !== null) users.push(text.created_by)
    if (text.last_modified_by !== null) users.push(text.last_modified_by)
  }
  return users
}

const mentioned = (users: Users, uuid: string | null | undefined): BasicUser | null => (uuid ? users.get(uuid) ?? null : null)

type TileShape = z.input<typeof TileResponse>
/** What a tile's shape shows besides the tile: its dashboard's id and environment, its place, and its card's users. */
type TilePlace = [dashboardId: number, environmentId: number, order: number, createdBy: BasicUser | null, modifiedBy: BasicUser | null]

const tileShape = (tile: Tile, [dashboardId, environmentId, order, createdBy, modifiedBy]: TilePlace, insight?: TileInsight): TileShape => ({
  id: tile.id,
  dashboard_id: dashboardId,
  insight: insight?.insight ?? null,
  text: tile.text && {
    id: tile.text.id,
    body: tile.text.body,
    created_by: createdBy,
    last_modified_at: apiTime(tile.text.last_modified_at),
    last_modified_by: modifiedBy,
    team: environmentId,
  },
  color: tile.color,
  layouts: tile.layouts,
  show_description: tile.show_description,
  transparent_background: tile.transparent_background,
  order,
  last_refresh: insight?.last_refresh ?? null,
  is_cached: insight?.is_cached ?? false,
})

const tiles = new KeptShapes<Tile, TilePlace, TileShape>()

/**
 * A tile's shape. A text card's is built once per kept tile while its place and its users stay
 * the same; an insight tile's shows results read for this request, so it is built every time.
 */
const tileJson = (dashboard: Dashboard, tile: Tile, order: number, users: Users, insight: TileInsight | undefined): TileShape => {
  const place: TilePlace = [dashboard.id, dashboard.environment_id, order, mentioned(users, tile.text?.created_by), mentioned(users, tile.text?.last_modified_by)]
  return insight === undefined ? tiles.shape(tile, place, tileShape) : tileShape(tile, place, insight)
}

/** Live tiles: text cards, and insight tiles whose insight is live. */
export const visibleTiles = (dashboard: Dashboard, insights: TileInsights = NO_TILE_INSIGHTS): Tile[] => {
  // A loop, not `filter`: kept documents are frozen, and filtering a frozen array takes a slow path.
  const visible: Tile[] = []
  for (const tile of dashboard.tiles) if (!tile.deleted && (tileInsight(tile) === null || insights.has(tile.id))) visible.push(tile)
  return visible
}

/** The ids of the insights a dashboard's live tiles show. */
export const tileInsightIds = (dashboard: Dashboard): number[] => {
  const ids: number[] = []
  for (const tile of dashboard.tiles) {
    const insight = tileInsight(tile)
    if (!tile.deleted && insight !== null) ids.push(insight)
  }
  return ids
}

/** What the list item shape reads of a dashboard (`listing.ts` loads just these fields). */
export type DashboardSummary = Pick<Dashboard,
  'id' | 'name' | 'description' | 'pinned' | 'created_at' | 'created_by' | 'deleted' | 'creation_mode' | 'tags'
  | 'restriction_level' | 'environment_id' | 'collaborators'> & { sharing: Pick<Dashboard['sharing'], 'enabled'> }

/** The list item shape: no tiles, no filters. */
export const dashboardBasic = (dashboard: DashboardSummary, actor: Actor, users: Users): z.input<typeof DashboardBasicResponse> => ({
  id: dashboard.id,
  name: dashboard.name,
  description: dashboard.description,
  pinned: dashboard.pinned,
  created_at: apiTime(dashboard.created_at),
  created_by: users.get(dashboard.created_by) ?? null,
  last_accessed_at: null,
  is_shared: dashboard.sharing.enabled,
  deleted: dashboard.deleted,
  creation_mode: dashboard.creation_mode,
  tags: dashboard.tags,
  restriction_level: dashboard.restriction_level,
  effective_restriction_level: effectiveRestrictionLevel(dashboard),
  effective_privilege_level: effectivePrivilegeLevel(dashboard, actor),
  user_access_level: canEdit(dashboard, actor) ? 'editor' : 'viewer',
  access_control_version: dashboard.restriction_level > 21 ? 'v1' : 'v2',
  team_id: dashboard.environment_id,
})

type DetailShape = z.input<typeof DashboardDetailResponse>

const detailShape = (dashboard: Dashboard, actor: Actor, users: Users, insights: TileInsights): DetailShape => ({
  ...dashboardBasic(dashboard, actor, users),
  filters: dashboard.filters,
  variables: dashboard.variables,
  tiles: visibleTiles(dashboard, insights).map((tile, order) => tileJson(dashboard, tile, order, users, insights.get(tile.id))),
})

const details = new KeptShapes<Dashboard, unknown[], DetailShape>()

/**
 * The detail shape. Without insight tiles it is built once per kept dashboard for each caller's
 * levels and the users it mentions as they are now; with them it shows results read for this
 * request, and is built every time.
 */
export const dashboardDetail = (dashboard: Dashboard, actor: Actor, users: Users, insights: TileInsights = NO_TILE_INSIGHTS): DetailShape => {
  if (insights.size > 0) return detailShape(dashboard, actor, users, insights)
  const inputs = [effectivePrivilegeLevel(dashboard, actor), canEdit(dashboard, actor), ...usersMentioned(dashboard).map((uuid) => users.get(uuid))]
  return details.shape(dashboard, inputs, () => detailShape(dashboard, actor, users, NO_TILE_INSIGHTS))
}

/** What `/shared/{token}` shows: the dashboard's public fields, as PostHog's public view reports levels. */
export const sharedDashboard = (
  dashboard: Dashboard, users: Users, insights: TileInsights = NO_TILE_INSIGHTS,
): z.input<typeof SharedDashboardResponse> => ({
  id: dashboard.id,
  name: dashboard.name,
  description: dashboard.description,
  created_at: apiTime(dashboard.created_at),
  filters: dashboard.filters,
  variables: dashboard.variables,
  tags: dashboard.tags,
  tiles: visibleTiles(dashboard, insights).map((tile, order) => tileJson(dashboard, tile, order, users, insights.get(tile.id))),
  effective_restriction_level: 37,
  effective_privilege_level: 21,
})

export const collaboratorJson = (dashboard: Dashboard, collaborator: Dashboard['collaborators'][number], users: Users): z.input<typeof CollaboratorResponse> => ({
  id: collaborator.id,
  dashboard_id: dashboard.id,
  user: users.get(collaborator.user_uuid) ?? null,
  level: collaborator.level,
  added_at: apiTime(collaborator.added_at),
  updated_at: apiTime(collaborator.updated_at),
  user_uuid: collaborator.user_uuid,
})

export const sharingJson = (dashboard: Dashboard): z.input<typeof SharingResponse> => ({
  created_at: apiTime(dashboard.sharing.created_at),
  enabled: dashboard.sharing.enabled,
  access_token: dashboard.sharing.access_token,
})
