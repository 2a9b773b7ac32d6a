import { tileInsight } from './events.js'
import type { Dashboard } from './state.js'
import { listOrderKey } from './list-order.js'

/** A live insight tile of a dashboard: the tile's id and its insight's. */
export interface InsightTileRef {
  [key: string]: number
  id: number
  insight: number
}

/**
 * A dashboard's read model: the dashboard, the key the list sorts its names by, and, on
 * dashboards with live insight tiles, those tiles (`insight_tiles`) and their insights' ids as
 * text (`insight_ids`, which the stores' `contains` finds), so the insights API finds the
 * dashboards an insight is on without reading every tile.
 */
export type DashboardDocument = Dashboard & { list_order: string; insight_tiles?: InsightTileRef[]; insight_ids?: string[] }

/**
 * The document of a dashboard. The insight fields are left out when there are no insight tiles,
 * so that documents of logs without insights are exactly those version 2 always built.
 */
export const dashboardDocument = (dashboard: Dashboard): DashboardDocument => {
  const { insight_tiles: _tiles, insight_ids: _ids, ...own } = dashboard as DashboardDocument
  const refs: InsightTileRef[] = []
  for (const tile of own.tiles) {
    const insight = tileInsight(tile)
    if (insight !== null && !tile.deleted) refs.push({ id: tile.id, insight })
  }
  const document: DashboardDocument = { ...own, list_order: listOrderKey(own.name) }
  if (refs.length === 0) return document
  return { ...document, insight_tiles: refs, insight_ids: [...new Set(refs.map((ref) => String(ref.insight)))] }
}

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    dashboards: DashboardDocument
  }
}
