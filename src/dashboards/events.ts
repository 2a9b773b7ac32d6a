import type { JsonObject } from '../eventlog/port.js'

/** A dashboard's tiles are text cards here; insight tiles keep PostHog's shape with `insight: null`. */
export interface TextCard extends JsonObject {
  id: number
  body: string
  created_by: string | null
  last_modified_at: string
  last_modified_by: string | null
}

export interface Tile extends JsonObject {
  id: number
  text: TextCard | null
  color: string | null
  layouts: JsonObject
  show_description: boolean | null
  transparent_background: boolean | null
  deleted: boolean
}

export interface Collaborator extends JsonObject {
  id: string
  user_uuid: string
  level: number
  added_at: string
  updated_at: string
}

export interface DashboardFields extends JsonObject {
  name: string | null
  description: string
  pinned: boolean
  restriction_level: number
  filters: JsonObject
  variables: JsonObject
  tags: string[]
}

export type DashboardCreated = {
  type: 'DashboardCreated'
  data: DashboardFields & {
    dashboardId: number; environmentId: number; creationMode: string; tiles: Tile[]
    accessToken: string; createdBy: string; at: string
  }
}
export type DashboardUpdated = { type: 'DashboardUpdated'; data: { changes: Partial<DashboardFields>; at: string } }
export type DashboardDeleted = { type: 'DashboardDeleted'; data: { at: string } }
export type DashboardRestored = { type: 'DashboardRestored'; data: { at: string } }
export type DashboardTileAdded = { type: 'DashboardTileAdded'; data: { tile: Tile; at: string } }
export type DashboardTileUpdated = { type: 'DashboardTileUpdated'; data: { tileId: number; changes: Partial<Tile>; at: string } }
/**
 * A move is decided by the source alone: `DashboardTileMovedOut` takes the tile off and carries
 * it, with the move's id, and `DashboardTileMovedIn` completes it on the destination (at most once
 * per move id). Moves recorded before the move id existed were written the other way round,
 * destination first, and carry neither `tile` nor `moveId` on the way out.
 */
export type DashboardTileMovedOut = {
  type: 'DashboardTileMovedOut'
  data: { tileId: number; toDashboard: number; at: string; tile?: Tile; moveId?: string }
}
export type DashboardTileMovedIn = { type: 'DashboardTileMovedIn'; data: { tile: Tile; fromDashboard: number; at: string; moveId?: string } }
export type DashboardCollaboratorAdded = { type: 'DashboardCollaboratorAdded'; data: { collaborator: Collaborator; at: string } }
export type DashboardCollaboratorRemoved = { type: 'DashboardCollaboratorRemoved'; data: { userUuid: string; at: string } }
export type DashboardSharingChanged = { type: 'DashboardSharingChanged'; data: { enabled: boolean; at: string } }

export type DashboardEvent =
  | DashboardCreated | DashboardUpdated | DashboardDeleted | DashboardRestored
  | DashboardTileAdded | DashboardTileUpdated | DashboardTileMovedOut | DashboardTileMovedIn
  | DashboardCollaboratorAdded | DashboardCollaboratorRemoved | DashboardSharingChanged

export const DASHBOARD_EVENT_TYPES: readonly DashboardEvent['type'][] = [
  'DashboardCreated', 'DashboardUpdated', 'DashboardDeleted', 'DashboardRestored',
  'DashboardTileAdded', 'DashboardTileUpdated', 'DashboardTileMovedOut', 'DashboardTileMovedIn',
  'DashboardCollaboratorAdded', 'DashboardCollaboratorRemoved', 'DashboardSharingChanged',
]

export const dashboardStream = (id: number) => `dashboard-${id}`
