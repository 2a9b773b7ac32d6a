import type { z } from 'zod'
import { apiTime } from '../http/timestamps.js'
import type { BasicUser } from '../accounts/users.js'
import { KeptShapes } from '../kernel/kept-shapes.js'
import type { Tile } from './events.js'
import { canEdit, effectivePrivilegeLevel, effectiveRestrictionLevel, type Actor } from './permissions.js'
import type {
  CollaboratorResponse, DashboardBasicResponse, DashboardDetailResponse, SharedDashboardResponse, SharingResponse, TileResponse,
} from './schemas.js'
import type { Dashboard } from './state.js'

type Users = ReadonlyMap<string, BasicUser>

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

const tileShape = (tile: Tile, [dashboardId, environmentId, order, createdBy, modifiedBy]: TilePlace): TileShape => ({
  id: tile.id,
  dashboard_id: dashboardId,
  insight: null,
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
  last_refresh: null,
  is_cached: false,
})

const tiles = new KeptShapes<Tile, TilePlace, TileShape>()

/** A tile's shape, built once per kept tile while its place and its users stay the same. */
const tileJson = (dashboard: Dashboard, tile: Tile, order: number, users: Users): TileShape => {
  const createdBy = mentioned(users, tile.text?.created_by)
  return tiles.shape(tile, [dashboard.id, dashboard.environment_id, order, createdBy, mentioned(users, tile.text?.last_modified_by)], tileShape)
}

export const visibleTiles = (dashboard: Dashboard): Tile[] => {
  // A loop, not `filter`: kept documents are frozen, and filtering a frozen array takes a slow path.
  const visible: Tile[] = []
  for (const tile of dashboard.tiles) if (!tile.deleted) visible.push(tile)
  return visible
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

const details = new KeptShapes<Dashboard, unknown[], z.input<typeof DashboardDetailResponse>>()

/**
 * The detail shape, built once per kept dashboard for each caller's levels and the users it
 * mentions as they are now.
 */
export const dashboardDetail = (dashboard: Dashboard, actor: Actor, users: Users): z.input<typeof DashboardDetailResponse> => {
  const inputs = [effectivePrivilegeLevel(dashboard, actor), canEdit(dashboard, actor), ...usersMentioned(dashboard).map((uuid) => users.get(uuid))]
  return details.shape(dashboard, inputs, () => ({
    ...dashboardBasic(dashboard, actor, users),
    filters: dashboard.filters,
    variables: dashboard.variables,
    tiles: visibleTiles(dashboard).map((tile, order) => tileJson(dashboard, tile, order, users)),
  }))
}

/** What `/shared/{token}` shows: the dashboard's public fields, as PostHog's public view reports levels. */
export const sharedDashboard = (dashboard: Dashboard, users: Users): z.input<typeof SharedDashboardResponse>['dashboard'] => ({
  id: dashboard.id,
  name: dashboard.name,
  description: dashboard.description,
  created_at: apiTime(dashboard.created_at),
  filters: dashboard.filters,
  variables: dashboard.variables,
  tags: dashboard.tags,
  tiles: visibleTiles(dashboard).map((tile, order) => tileJson(dashboard, tile, order, users)),
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
