import type { JsonObject } from '../../eventlog/port.js'
import type { Environment } from '../../readstore/environment.js'
import type { ReadModels } from '../../readstore/read-models.js'
import { tileInsight } from '../../dashboards/events.js'
import { underDashboardFilters } from '../dashboard-filters.js'
import type { InsightDocument } from '../document.js'

/** A query to keep live, and the environment it is asked in. */
export interface KeptQuery {
  readonly environment: Environment
  readonly query: JsonObject | null
}

/**
 * The queries the service keeps live from its start: every saved insight's, every insight's on
 * a live dashboard (under that dashboard's filters, as its tile shows it) and every insight's a
 * live subscription delivers. Deleted insights, dashboards and subscriptions keep nothing.
 */
export const keptLive = async (models: ReadModels): Promise<KeptQuery[]> => {
  const insights = new Map<number, InsightDocument>()
  for await (const page of models.pages('insights', { where: { deleted: false }, orderBy: [['id', 'asc']] })) {
    for (const insight of page) insights.set(insight.id, insight)
  }
  const environments = new Map<number, Environment | null>()
  const environmentOf = async (id: number): Promise<Environment | null> => {
    if (!environments.has(id)) environments.set(id, await models.get('environments', String(id)))
    return environments.get(id) ?? null
  }
  const kept: KeptQuery[] = []
  const keep = async (insight: InsightDocument | undefined, filters: JsonObject | null) => {
    if (insight === undefined) return
    const environment = await environmentOf(insight.environment_id)
    if (environment === null) return
    kept.push({ environment, query: (filters === null ? insight : underDashboardFilters(insight, filters)).query })
  }
  for (const insight of insights.values()) if (insight.saved) await keep(insight, null)
  for await (const page of models.pages('dashboards', { where: { deleted: false }, orderBy: [['id', 'asc']] })) {
    for (const dashboard of page) {
      for (const tile of dashboard.tiles) {
        const id = tileInsight(tile)
        if (!tile.deleted && id !== null) await keep(insights.get(id), dashboard.filters)
      }
    }
  }
  for await (const page of models.pages('subscriptions', { where: { deleted: false }, orderBy: [['id', 'asc']] })) {
    for (const subscription of page) if (typeof subscription.insight === 'number') await keep(insights.get(subscription.insight), null)
  }
  return kept
}
