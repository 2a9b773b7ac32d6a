import type { JsonObject } from '../eventlog/port.js'

/** A text card of a dashboard, as PostHog's `Text`. */
export interface TextCard extends JsonObject {
  id: number
  body: string
  created_by: string | null
  last_modified_at: string
  last_modified_by: string | null
}

/** A text card (`text`) or an insight tile (`insight`, the insight's id; absent on text cards). */
export interface Tile extends JsonObject {
  id: number
  text: TextCard | null
  insight?: number | null
  color: string | null
  layouts: JsonObject
  show_description: boolean | null
  transparent_background: boolean | null
  deleted: boolean
}

/** The insight a tile shows; null for a text card (tiles written before insights existed may say `insight: null`). */
export const tileInsight = (tile: Tile): number | null => (typeof tile.insight === 'number' ? tile.insight : null)

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
/**
 * Soft deletion and restoring. A deletion with `delete_insights` names the insights that lived
 * only on this dashboard (`insights`), and its restoring names them again; each insight's stream
 * completes the command with `InsightDeleted` or `InsightRestored` carrying `changeId`.
 */
export type DashboardDeleted = { type: 'DashboardDeleted'; data: { at: string; insights?: number[]; changeId?: string } }
export type DashboardRestored = { type: 'DashboardRestored'; data: { at: string; insights?: number[]; changeId?: string } }
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
/**
 * An insight's change of dashboards completed here (`InsightDashboardsChanged`, once per change
 * and dashboard): the insight's tile comes on, `tile` when it has none here, or goes off.
 */
export type DashboardInsightTilePlaced = { type: 'DashboardInsightTilePlaced'; data: { insightId: number; tile: Tile; changeId: string; at: string } }
export type DashboardInsightTileRemoved = { type: 'DashboardInsightTileRemoved'; data: { insightId: number; changeId: string; at: string } }
export type DashboardCollaboratorAdded = { type: 'DashboardCollaboratorAdded'; data: { collaborator: Collaborator; at: string } }
export type DashboardCollaboratorRemoved = { type: 'DashboardCollaboratorRemoved'; data: { userUuid: string; at: string } }
export type DashboardSharingChanged = { type: 'DashboardSharingChanged'; data: { enabled: boolean; at: string } }

export type DashboardEvent =
  | DashboardCreated | DashboardUpdated | DashboardDeleted | DashboardRestored
  | DashboardTileAdded | DashboardTileUpdated | DashboardTileMovedOut | DashboardTileMovedIn
  | DashboardInsightTilePlaced | DashboardInsightTileRemoved
  | DashboardCollaboratorAdded | DashboardCollaboratorRemoved | DashboardSharingChanged

export const DASHBOARD_EVENT_TYPES: readonly DashboardEvent['type'][] = [
  'DashboardCreated', 'DashboardUpdated', 'DashboardDeleted', 'DashboardRestored',
  'DashboardTileAdded', 'DashboardTileUpdated', 'DashboardTileMovedOut', 'DashboardTileMovedIn',
  'DashboardInsightTilePlaced', 'DashboardInsightTileRemoved',
  'DashboardCollaboratorAdded', 'DashboardCollaboratorRemoved', 'DashboardSharingChanged',
]

export const dashboardStream = (id: number) => `dashboard-${id}`
