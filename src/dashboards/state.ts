import type { JsonObject } from '../eventlog/port.js'
import { assertNever } from '../kernel/errors.js'
import type { Collaborator, DashboardEvent, DashboardFields, Tile } from './events.js'

export interface Sharing extends JsonObject {
  access_token: string
  enabled: boolean
  created_at: string | null
}

/** A dashboard as its events leave it; the read model stores exactly this document. */
export interface Dashboard extends DashboardFields {
  id: number
  environment_id: number
  creation_mode: string
  tiles: Tile[]
  collaborators: Collaborator[]
  sharing: Sharing
  /** The sharing token again, top level, so the public view can find it by index. */
  access_token: string
  deleted: boolean
  created_by: string
  created_at: string
  updated_at: string
  /** Ids of the moves that brought a tile here, so a move is completed at most once. */
  arrivals?: string[]
  /** The insights its deletion deleted with it (`delete_insights`), which its restoring restores. */
  deleted_insights?: number[]
}

const mapTile = (tiles: Tile[], id: number, change: (tile: Tile) => Tile): Tile[] =>
  tiles.map((tile) => (tile.id === id ? change(tile) : tile))

/** The insight's tile comes on: the tile itself when it is here (deleted), nothing when another of its tiles is live, else the tile is added. */
const placeInsightTile = (tiles: Tile[], insightId: number, tile: Tile): Tile[] => {
  if (tiles.some((t) => t.id === tile.id)) return mapTile(tiles, tile.id, (t) => ({ ...t, deleted: false }))
  if (tiles.some((t) => t.insight === insightId && !t.deleted)) return tiles
  return [...tiles, tile]
}

const removeInsightTiles = (tiles: Tile[], insightId: number): Tile[] =>
  tiles.map((tile) => (tile.insight === insightId && !tile.deleted ? { ...tile, deleted: true } : tile))

const deletion = (state: Dashboard, insights: number[] | undefined, at: string): Dashboard =>
  ({ ...state, deleted: true, ...(insights && insights.length > 0 ? { deleted_insights: insights } : {}), updated_at: at })

const restoring = (state: Dashboard, at: string): Dashboard => {
  const { deleted_insights: _restored, ...rest } = state
  return { ...rest, deleted: false, updated_at: at }
}

export const evolveDashboard = (state: Dashboard | null, event: DashboardEvent): Dashboard | null => {
  if (event.type === 'DashboardCreated') {
    const { data } = event
    return {
      id: data.dashboardId, environment_id: data.environmentId, name: data.name, description: data.description,
      pinned: data.pinned, restriction_level: data.restriction_level, filters: data.filters, variables: data.variables,
      tags: data.tags, creation_mode: data.creationMode, tiles: data.tiles, collaborators: [],
      sharing: { access_token: data.accessToken, enabled: false, created_at: null }, access_token: data.accessToken,
      deleted: false, created_by: data.createdBy, created_at: data.at, updated_at: data.at,
    }
  }
  if (state === null) return null
  const at = event.data.at
  switch (event.type) {
    case 'DashboardUpdated': return { ...state, ...event.data.changes, updated_at: at }
    case 'DashboardDeleted': return deletion(state, event.data.insights, at)
    case 'DashboardRestored': return restoring(state, at)
    case 'DashboardTileAdded': return { ...state, tiles: [...state.tiles, event.data.tile], updated_at: at }
    case 'DashboardTileUpdated':
      return { ...state, tiles: mapTile(state.tiles, event.data.tileId, (tile) => ({ ...tile, ...event.data.changes })), updated_at: at }
    case 'DashboardTileMovedOut':
      return { ...state, tiles: state.tiles.filter((tile) => tile.id !== event.data.tileId), updated_at: at }
    case 'DashboardTileMovedIn': {
      const { moveId, tile } = event.data
      if (moveId === undefined) return { ...state, tiles: [...state.tiles, tile], updated_at: at }
      if (state.arrivals?.includes(moveId)) return state
      return { ...state, tiles: [...state.tiles, tile], arrivals: [...(state.arrivals ?? []), moveId], updated_at: at }
    }
    case 'DashboardInsightTilePlaced':
      return { ...state, tiles: placeInsightTile(state.tiles, event.data.insightId, event.data.tile), updated_at: at }
    case 'DashboardInsightTileRemoved':
      return { ...state, tiles: removeInsightTiles(state.tiles, event.data.insightId), updated_at: at }
    case 'DashboardCollaboratorAdded':
      return { ...state, collaborators: [...state.collaborators, event.data.collaborator] }
    case 'DashboardCollaboratorRemoved':
      return { ...state, collaborators: state.collaborators.filter((c) => c.user_uuid !== event.data.userUuid) }
    case 'DashboardSharingChanged':
      return {
        ...state,
        sharing: { ...state.sharing, enabled: event.data.enabled, created_at: state.sharing.created_at ?? at },
      }
    default: return assertNever(event)
  }
}
