import { basicUsers } from '../accounts/user-lookup.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { RefreshMode, InsightResults } from './results.js'
import { insightBasic, insightJson } from './serialize.js'
import type { Insight } from './state.js'
import { tilesOfInsight, type DashboardTileRef } from './tiles.js'

interface PresentDeps {
  readonly models: ReadModels
  readonly insightResults: InsightResults
}

/** How a response shows insights: the full shape with results under a mode, or the basic one (`?basic=true`), which computes none. */
export type Shape = { readonly basic: true } | { readonly basic: false; readonly refresh: RefreshMode }

/** An insight in either shape. */
export type Shown = ReturnType<typeof insightJson> | ReturnType<typeof insightBasic>

const usersOf = (models: ReadModels, insights: readonly Insight[]) =>
  basicUsers(models, insights.flatMap((insight) => [insight.created_by, insight.last_modified_by]))

/** Insights as the API shows them, their tiles given (by insight id). */
export const presentInsights = async (
  deps: PresentDeps, environment: Environment, insights: readonly Insight[], tiles: ReadonlyMap<number, readonly DashboardTileRef[]>, shape: Shape,
): Promise<Shown[]> => {
  const users = await usersOf(deps.models, insights)
  const tilesOf = (insight: Insight) => tiles.get(insight.id) ?? []
  if (shape.basic) return insights.map((insight) => insightBasic(insight, tilesOf(insight), users))
  const results = await Promise.all(insights.map((insight) => deps.insightResults(environment, insight, shape.refresh)))
  return insights.map((insight, i) => insightJson(insight, tilesOf(insight), results[i]!, users))
}

/** One live insight, its tiles read from the dashboards that hold them. */
export const presentInsight = async (deps: PresentDeps, environment: Environment, insight: Insight, shape: Shape): Promise<Shown> => {
  const tiles = new Map([[insight.id, await tilesOfInsight(deps.models, environment.id, insight.id)]])
  const [shown] = await presentInsights(deps, environment, [insight], tiles, shape)
  return shown!
}

/** An insight as it stood at a past time (`?as_of=`): its tiles are those its own stream had put on dashboards by then. */
export const presentPast = async (deps: PresentDeps, environment: Environment, insight: Insight, shape: Shape): Promise<Shown> => {
  const tiles = new Map([[insight.id, insight.dashboard_tiles.map((tile) => ({ id: tile.tileId, dashboard_id: tile.dashboardId }))]])
  const [shown] = await presentInsights(deps, environment, [insight], tiles, shape)
  return shown!
}
