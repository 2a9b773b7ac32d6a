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

/**
 * An insight's history as PostHog's activity log shows it (scope `Insight`, its short id in the
 * detail). A change of dashboards shows as a change of the field `dashboard_tiles`, the tiles
 * the insight put on dashboards and where.
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
  ignoredFields: ['updated_at', 'last_modified_at', 'last_modified_by', 'access_token'],
}
