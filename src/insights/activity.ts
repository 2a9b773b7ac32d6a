import type { ActivitySource } from '../kernel/activity-source.js'
import type { InsightEvent } from './events.js'
import { evolveInsight, type Insight } from './state.js'

const ACTIVITY: Record<Exclude<InsightEvent['type'], 'InsightSharingChanged'>, string> = {
  InsightCreated: 'created',
  InsightUpdated: 'updated',
  InsightDashboardsChanged: 'updated',
  InsightDeleted: 'deleted',
  InsightRestored: 'restored',
}

/** The insight's fields as its activity compares them: the dashboards its tiles are on, in place of the tiles. */
const fieldsOf = (state: Insight | null) => {
  if (state === null) return null
  const { dashboard_tiles: tiles, ...fields } = state
  return { ...fields, dashboards: tiles.map((tile) => tile.dashboardId) }
}

/**
 * An insight's history as PostHog's activity log shows it (scope `Insight`, its short id in the
 * detail). A change of dashboards shows as one change of the field `dashboards`, as in PostHog.
 */
export const insightActivity: ActivitySource<Insight | null, InsightEvent> = {
  scope: 'Insight',
  initialState: null,
  evolve: evolveInsight,
  activityOf: (event) => (event.type === 'InsightSharingChanged'
    ? `sharing ${event.data.enabled ? 'enabled' : 'disabled'}`
    : ACTIVITY[event.type]),
  nameOf: (state) => state?.name ?? state?.derived_name ?? null,
  shortIdOf: (state) => state?.short_id ?? null,
  fieldsOf,
  ignoredFields: ['updated_at', 'last_modified_at', 'last_modified_by', 'access_token'],
}
