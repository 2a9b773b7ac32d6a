import type { BasicUser } from '../accounts/users.js'
import type { JsonObject } from '../eventlog/port.js'
import { apiTime } from '../http/timestamps.js'
import type { InsightResultFields } from './results.js'
import type { Insight } from './state.js'
import type { DashboardTileRef } from './tiles.js'

type Users = ReadonlyMap<string, BasicUser>

/** PostHog's levels for insights without dashboard restrictions: everyone in the project can edit. */
const EVERYONE_CAN_EDIT = 21
const CAN_EDIT = 37

/** Legacy `filters`: `{}` whenever the insight has a query; a filter-only insight is a trend unless it says otherwise. */
export const legacyFilters = (insight: Pick<Insight, 'query' | 'filters'>): JsonObject =>
  insight.query !== null ? {} : { insight: 'TRENDS', ...insight.filters }

const dashboardIds = (tiles: readonly DashboardTileRef[]): number[] => [...new Set(tiles.map((tile) => tile.dashboard_id))]

const tileRefs = (tiles: readonly DashboardTileRef[]) => tiles.map((tile) => ({ id: tile.id, dashboard_id: tile.dashboard_id, deleted: false }))

/** The members both shapes begin with. */
const identity = (insight: Insight) => ({
  id: insight.id,
  short_id: insight.short_id,
  name: insight.name,
  derived_name: insight.derived_name,
  filters: legacyFilters(insight),
  query: insight.query,
})

/** The full insight shape (`InsightSerializer`), members in PostHog's order. */
export const insightJson = (insight: Insight, tiles: readonly DashboardTileRef[], results: InsightResultFields, users: Users) => ({
  ...identity(insight),
  order: insight.order,
  deleted: insight.deleted,
  dashboards: dashboardIds(tiles),
  dashboard_tiles: tileRefs(tiles),
  last_refresh: results.last_refresh,
  cache_target_age: results.cache_target_age,
  next_allowed_client_refresh: results.next_allowed_client_refresh,
  result: results.result,
  hasMore: results.hasMore,
  columns: results.columns,
  created_at: apiTime(insight.created_at),
  created_by: users.get(insight.created_by) ?? null,
  description: insight.description,
  updated_at: apiTime(insight.updated_at),
  tags: insight.tags,
  favorited: insight.favorited,
  saved: insight.saved,
  last_modified_at: apiTime(insight.last_modified_at),
  last_modified_by: users.get(insight.last_modified_by) ?? null,
  is_sample: false,
  effective_restriction_level: EVERYONE_CAN_EDIT,
  effective_privilege_level: CAN_EDIT,
  user_access_level: 'editor',
  timezone: results.timezone,
  is_cached: results.is_cached,
  query_status: results.query_status,
  hogql: results.hogql,
  types: results.types,
  alerts: [],
  last_viewed_at: null,
  filters_hash: results.filters_hash,
  resolved_date_range: results.resolved_date_range,
})

/** The light shape `?basic=true` asks for (`InsightBasicSerializer`): no results are computed for it. */
export const insightBasic = (insight: Insight, tiles: readonly DashboardTileRef[], users: Users) => ({
  ...identity(insight),
  dashboards: dashboardIds(tiles),
  dashboard_tiles: tileRefs(tiles),
  description: insight.description,
  last_refresh: null,
  refreshing: false,
  saved: insight.saved,
  tags: insight.tags,
  updated_at: apiTime(insight.updated_at),
  created_by: users.get(insight.created_by) ?? null,
  created_at: apiTime(insight.created_at),
  last_modified_at: apiTime(insight.last_modified_at),
  favorited: insight.favorited,
  user_access_level: 'editor',
  last_viewed_at: null,
})

/** What a sharing token shows of an insight: no users, and the levels PostHog reports to a public viewer. */
export const sharedInsightJson = (insight: Insight, results: InsightResultFields) => ({
  id: insight.id,
  short_id: insight.short_id,
  name: insight.name,
  derived_name: insight.derived_name,
  description: insight.description,
  filters: legacyFilters(insight),
  query: insight.query,
  tags: insight.tags,
  created_at: apiTime(insight.created_at),
  last_modified_at: apiTime(insight.last_modified_at),
  result: results.result,
  hasMore: results.hasMore,
  columns: results.columns,
  types: results.types,
  last_refresh: results.last_refresh,
  is_cached: results.is_cached,
  timezone: results.timezone,
  resolved_date_range: results.resolved_date_range,
  effective_restriction_level: CAN_EDIT,
  effective_privilege_level: EVERYONE_CAN_EDIT,
})

export const insightSharingJson = (insight: Insight) => ({
  created_at: apiTime(insight.sharing.created_at),
  enabled: insight.sharing.enabled,
  access_token: insight.sharing.access_token,
})
