import type { JsonObject } from '../eventlog/port.js'
import { eventTypes } from '../kernel/event-types.js'

/** What a client writes of an insight; `query` is stored exactly as it was given. */
export interface InsightFields extends JsonObject {
  name: string | null
  derived_name: string | null
  description: string | null
  query: JsonObject | null
  filters: JsonObject
  order: number | null
  tags: string[]
  favorited: boolean
  saved: boolean
}

/** A tile the insight decided to put on a dashboard: the tile's id, allocated before the decision. */
export interface TilePlacement extends JsonObject {
  dashboardId: number
  tileId: number
}

export type InsightCreated = {
  type: 'InsightCreated'
  data: InsightFields & { insightId: number; environmentId: number; shortId: string; accessToken: string; createdBy: string; at: string }
}
/** Only the fields that changed; `last_modified_*` move when one of them is material (name, description, filters, query). */
export type InsightUpdated = { type: 'InsightUpdated'; data: { changes: Partial<InsightFields>; modifiedBy: string; at: string } }
/**
 * A change of the dashboards an insight is on, decided by the insight: the tiles to put on
 * dashboards (`added`) and the dashboards to take it off (`removed`). Each dashboard completes
 * its part with `DashboardInsightTilePlaced` or `DashboardInsightTileRemoved` carrying `changeId`.
 */
export type InsightDashboardsChanged = {
  type: 'InsightDashboardsChanged'
  data: { changeId: string; added: TilePlacement[]; removed: number[]; at: string }
}
/**
 * Soft deletion and restoring. `byDashboard` and `changeId` are set when a dashboard decided it
 * (a dashboard deleted with `delete_insights`, or restored after one), completing that command.
 */
export type InsightDeleted = { type: 'InsightDeleted'; data: { modifiedBy: string; at: string; byDashboard?: number; changeId?: string } }
export type InsightRestored = { type: 'InsightRestored'; data: { modifiedBy: string; at: string; byDashboard?: number; changeId?: string } }
export type InsightSharingChanged = { type: 'InsightSharingChanged'; data: { enabled: boolean; at: string } }

export type InsightEvent =
  | InsightCreated | InsightUpdated | InsightDashboardsChanged | InsightDeleted | InsightRestored | InsightSharingChanged

export const INSIGHT_EVENT_TYPES = eventTypes<InsightEvent['type']>({
  InsightCreated: true, InsightUpdated: true, InsightDashboardsChanged: true, InsightDeleted: true, InsightRestored: true, InsightSharingChanged: true,
})

export const INSIGHT_STREAM_PREFIX = 'insight-'
export const insightStream = (id: number) => `${INSIGHT_STREAM_PREFIX}${id}`
