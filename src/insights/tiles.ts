import type { JsonObject } from '../eventlog/port.js'
import type { ReadModels } from '../readstore/read-models.js'

/** A live tile of an insight on a live dashboard, as the insight's `dashboard_tiles` lists it. */
export interface DashboardTileRef {
  readonly id: number
  readonly dashboard_id: number
}

type Refs = { id: number; insight_tiles?: readonly { id: number; insight: number }[] }

const byInsight = (dashboards: readonly Refs[], wanted: (insight: number) => boolean): Map<number, DashboardTileRef[]> => {
  const tiles = new Map<number, DashboardTileRef[]>()
  for (const dashboard of [...dashboards].sort((a, b) => a.id - b.id)) {
    for (const ref of dashboard.insight_tiles ?? []) {
      if (!wanted(ref.insight)) continue
      const list = tiles.get(ref.insight) ?? []
      list.push({ id: ref.id, dashboard_id: dashboard.id })
      tiles.set(ref.insight, list)
    }
  }
  return tiles
}

const FIELDS = ['id', 'insight_tiles']

/**
 * The live tiles of every insight of an environment on its live dashboards, by insight id. The
 * dashboards are the truth of what they show: the tiles an insight put there may since have been
 * removed or moved on the dashboard itself. One query reads two fields of each dashboard.
 */
export const tilesByInsight = async (models: ReadModels, environmentId: number): Promise<Map<number, DashboardTileRef[]>> => {
  const dashboards = await models.find('dashboards', { where: { environment_id: environmentId, deleted: false }, fields: FIELDS })
  return byInsight(dashboards as JsonObject[] as Refs[], () => true)
}

/** The live tiles of one insight on the environment's live dashboards, found by the dashboards' `insight_ids`. */
export const tilesOfInsight = async (models: ReadModels, environmentId: number, insightId: number): Promise<DashboardTileRef[]> => {
  const dashboards = await models.find('dashboards', {
    where: { environment_id: environmentId, deleted: false }, contains: { insight_ids: String(insightId) }, fields: FIELDS,
  })
  return byInsight(dashboards as JsonObject[] as Refs[], (insight) => insight === insightId).get(insightId) ?? []
}
