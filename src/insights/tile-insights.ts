import { basicUsers } from '../accounts/user-lookup.js'
import type { BasicUser } from '../accounts/users.js'
import type { JsonObject } from '../eventlog/port.js'
import { deepFreeze } from '../kernel/deep-freeze.js'
import { tileInsight } from '../dashboards/events.js'
import { NO_TILE_INSIGHTS, tileInsightIds, type TileInsight, type TileInsights } from '../dashboards/serialize.js'
import type { Dashboard } from '../dashboards/state.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import { underDashboardFilters } from './dashboard-filters.js'
import type { InsightResultFields, InsightResults, RefreshMode } from './results.js'
import { insightJson, sharedInsightJson } from './serialize.js'
import { tilesByInsight, type DashboardTileRef } from './tiles.js'
import { stateAsOf } from '../eventlog/as-of.js'
import type { Cutoff } from '../eventlog/cutoff.js'
import type { EventLog } from '../eventlog/port.js'
import type { ResultsAsOf } from './as-of/results-as-of.js'
import { insightStream } from './events.js'
import { evolveInsight, type Insight } from './state.js'

/** A tile's insight as last shown, and what it was shown from. */
interface Shown {
  readonly filters: JsonObject
  readonly view: 'full' | 'shared'
  readonly results: InsightResultFields
  /** The insight's tiles, and its creator and last modifier as text. */
  readonly refs: readonly DashboardTileRef[]
  readonly users: string
  readonly tile: TileInsight
}

/**
 * Tile insights last shown, by insight document (kept unchanged while it lives): a tile whose
 * insight, dashboard filters, results, tiles and users are the same as last time is shown by the
 * same frozen object, whose text a response writer keeps.
 */
const shownBefore = new WeakMap<Insight, Shown>()

const usersOf = (users: ReadonlyMap<string, BasicUser>, insight: Insight): string =>
  JSON.stringify([users.get(insight.created_by) ?? null, users.get(insight.last_modified_by) ?? null])

const sameRefs = (a: readonly DashboardTileRef[], b: readonly DashboardTileRef[]): boolean =>
  a.length === b.length && a.every((ref, i) => ref.id === b[i]!.id && ref.dashboard_id === b[i]!.dashboard_id)

interface TileDeps {
  readonly models: ReadModels
  readonly insightResults: InsightResults
}

/**
 * The insights a dashboard's tiles show, by tile id: each live insight in the full shape (or,
 * for a shared view, the public one), with its results under `refresh`, which also give the
 * tile's `last_refresh` and `is_cached`. Tiles of deleted or missing insights get none.
 */
export const tileInsights = async (
  deps: TileDeps, environment: Environment, dashboard: Dashboard, refresh: RefreshMode, view: 'full' | 'shared' = 'full',
): Promise<TileInsights> => {
  const ids = [...new Set(tileInsightIds(dashboard))]
  if (ids.length === 0) return NO_TILE_INSIGHTS
  const insights = new Map<number, Insight>()
  for (const id of ids) {
    const insight = await deps.models.get('insights', String(id))
    if (insight && !insight.deleted && insight.environment_id === dashboard.environment_id) insights.set(id, insight)
  }
  const tiles = view === 'full' ? await tilesByInsight(deps.models, environment.id) : new Map<number, DashboardTileRef[]>()
  return shownTiles(deps, environment, dashboard, insights, tiles, refresh, view)
}

/**
 * The insights a past dashboard's tiles showed, by tile id, in the full shape: each insight as it
 * stood at the cutoff (none for a tile whose insight was deleted or did not exist yet), its
 * `dashboard_tiles` those its own changes had made by then, and its results from `results`, which
 * answers as of the same moment.
 */
export const pastTileInsights = async (
  deps: { readonly models: ReadModels; readonly log: EventLog }, environment: Environment, dashboard: Dashboard, cutoff: Cutoff, results: ResultsAsOf,
): Promise<TileInsights> => {
  const ids = [...new Set(tileInsightIds(dashboard))]
  if (ids.length === 0) return NO_TILE_INSIGHTS
  const insights = new Map<number, Insight>()
  const tiles = new Map<number, DashboardTileRef[]>()
  for (const id of ids) {
    const insight = await stateAsOf(deps.log, insightStream(id), evolveInsight, null, cutoff)
    if (!insight || insight.deleted || insight.environment_id !== dashboard.environment_id) continue
    insights.set(id, insight)
    tiles.set(id, insight.dashboard_tiles.map((tile) => ({ id: tile.tileId, dashboard_id: tile.dashboardId })))
  }
  const shown = { models: deps.models, insightResults: ((_environment, insight) => results(insight)) satisfies InsightResults }
  return shownTiles(shown, environment, dashboard, insights, tiles, 'force_cache', 'full')
}

const shownTiles = async (
  deps: TileDeps, environment: Environment, dashboard: Dashboard, insights: ReadonlyMap<number, Insight>,
  tiles: ReadonlyMap<number, readonly DashboardTileRef[]>, refresh: RefreshMode, view: 'full' | 'shared',
): Promise<TileInsights> => {
  const users = view === 'full' ? await basicUsers(deps.models, [...insights.values()].flatMap((i) => [i.created_by, i.last_modified_by])) : new Map()
  const shown = new Map<number, TileInsight>()
  for (const tile of dashboard.tiles) {
    const id = tileInsight(tile)
    const insight = id === null ? undefined : insights.get(id)
    if (tile.deleted || insight === undefined) continue
    // The dashboard's filters change the query the tile runs, so its results have a cache key of their own.
    const before = shownBefore.get(insight)
    const shownInsight = before?.filters === dashboard.filters ? { ...insight, query: (before.tile.insight as { query: JsonObject | null }).query } : underDashboardFilters(insight, dashboard.filters)
    const results = await deps.insightResults(environment, shownInsight, refresh)
    const refs = tiles.get(insight.id) ?? []
    const named = view === 'full' ? usersOf(users, insight) : ''
    if (before && before.filters === dashboard.filters && before.view === view && before.results === results && sameRefs(before.refs, refs) && before.users === named) {
      shown.set(tile.id, before.tile)
      continue
    }
    const json = view === 'full' ? insightJson(shownInsight, refs, results, users) : sharedInsightJson(shownInsight, results)
    const made: TileInsight = { insight: json, last_refresh: results.last_refresh, is_cached: results.is_cached }
    shown.set(tile.id, made)
    // Only results that cannot change (a live answer's) make a tile worth keeping.
    if (Object.isFrozen(results)) shownBefore.set(insight, { filters: dashboard.filters, view, results, refs, users: named, tile: deepFreeze(made) })
  }
  return shown
}
