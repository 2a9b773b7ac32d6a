import type { JsonObject } from '../eventlog/port.js'
import { assertNever } from '../kernel/errors.js'
import type { InsightEvent, InsightFields, TilePlacement } from './events.js'

export interface InsightSharing extends JsonObject {
  access_token: string
  enabled: boolean
  created_at: string | null
}

/** An insight as its own events leave it; the read model stores this document and its `kind`. */
export interface Insight extends InsightFields {
  id: number
  short_id: string
  environment_id: number
  deleted: boolean
  /**
   * The tiles this insight's own changes put on dashboards, one per dashboard. What a dashboard
   * did to a tile since (removed it, moved it) is on the dashboard's stream: the API reads the
   * tiles from the dashboards; this is the insight's history, for its activity log and `?as_of=`.
   */
  dashboard_tiles: TilePlacement[]
  sharing: InsightSharing
  /** The sharing token again, top level, so the public view can find it by index. */
  access_token: string
  created_by: string
  created_at: string
  last_modified_by: string
  last_modified_at: string
  updated_at: string
}

/** Fields whose change moves `last_modified_at` and `last_modified_by`, as PostHog's `MATERIAL_INSIGHT_FIELDS`. */
export const MATERIAL_FIELDS: readonly (keyof InsightFields)[] = ['name', 'description', 'filters', 'query']

const placed = (tiles: readonly TilePlacement[], added: readonly TilePlacement[], removed: readonly number[]): TilePlacement[] => {
  const gone = new Set([...removed, ...added.map((tile) => tile.dashboardId)])
  return [...tiles.filter((tile) => !gone.has(tile.dashboardId)), ...added]
}

export const evolveInsight = (state: Insight | null, event: InsightEvent): Insight | null => {
  if (event.type === 'InsightCreated') {
    const { insightId, environmentId, shortId, accessToken, createdBy, at, ...fields } = event.data
    return {
      ...fields, id: insightId, short_id: shortId, environment_id: environmentId, deleted: false, dashboard_tiles: [],
      sharing: { access_token: accessToken, enabled: false, created_at: null }, access_token: accessToken,
      created_by: createdBy, created_at: at, last_modified_by: createdBy, last_modified_at: at, updated_at: at,
    }
  }
  if (state === null) return null
  const at = event.data.at
  switch (event.type) {
    case 'InsightUpdated': {
      const { changes, modifiedBy } = event.data
      const material = MATERIAL_FIELDS.some((field) => field in changes)
      return { ...state, ...changes, ...(material ? { last_modified_by: modifiedBy, last_modified_at: at } : {}), updated_at: at }
    }
    case 'InsightDashboardsChanged':
      return { ...state, dashboard_tiles: placed(state.dashboard_tiles, event.data.added, event.data.removed), updated_at: at }
    case 'InsightDeleted': return state.deleted ? state : { ...state, deleted: true, updated_at: at }
    case 'InsightRestored': return state.deleted ? { ...state, deleted: false, updated_at: at } : state
    case 'InsightSharingChanged':
      return { ...state, sharing: { ...state.sharing, enabled: event.data.enabled, created_at: state.sharing.created_at ?? at } }
    default: return assertNever(event)
  }
}
