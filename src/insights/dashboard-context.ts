import { isJsonObject, type JsonObject } from '../eventlog/port.js'
import { NotFound, ValidationFailed } from '../kernel/errors.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import { setOwn } from '../kernel/own-value.js'

/** The parameters of an insight read that put it in a dashboard's context. */
export interface DashboardContextQuery {
  readonly from_dashboard?: string | undefined
  readonly filters_override?: string | undefined
  readonly tile_filters_override?: string | undefined
}

/** A JSON object parameter; text that is not one is refused in PostHog's words, naming the parameter. */
const jsonParameter = (name: 'filters_override' | 'tile_filters_override', raw: string | undefined): JsonObject => {
  if (raw === undefined || raw === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    parsed = undefined
  }
  if (!isJsonObject(parsed)) throw new ValidationFailed(`Invalid JSON passed in ${name} parameter`, name)
  return parsed
}

/** The dashboard filters of a `from_dashboard` read: 404 unless it is a live dashboard of this environment with a live tile of the insight. */
const dashboardFilters = async (models: ReadModels, environment: Environment, insightId: number, raw: string): Promise<JsonObject> => {
  const dashboard = /^\d{1,15}$/.test(raw) ? await models.get('dashboards', String(Number(raw))) : null
  if (!dashboard || dashboard.environment_id !== environment.id || dashboard.deleted) throw new NotFound()
  if (!dashboard.tiles.some((tile) => tile.insight === insightId && !tile.deleted)) throw new NotFound()
  return dashboard.filters
}

/**
 * A tile's filters win over the dashboard's wherever they set a value. A key named `__proto__`
 * stays a key (which nothing reads), not the prototype the filters would be read through.
 */
const overTile = (filters: JsonObject, tile: JsonObject): JsonObject => {
  const merged = { ...filters }
  for (const [key, value] of Object.entries(tile)) if (value !== null && value !== undefined && value !== '') setOwn(merged, key, value)
  return merged
}

/**
 * The filters an insight read runs its query under, or null when it asks for none: the
 * `from_dashboard` dashboard's, `filters_override` laid over them key by key, then
 * `tile_filters_override` over both, as PostHog combines them.
 */
export const readContextFilters = async (
  models: ReadModels, environment: Environment, insightId: number, query: DashboardContextQuery,
): Promise<JsonObject | null> => {
  const override = jsonParameter('filters_override', query.filters_override)
  const tile = jsonParameter('tile_filters_override', query.tile_filters_override)
  const fromDashboard = query.from_dashboard === undefined || query.from_dashboard === ''
    ? {}
    : await dashboardFilters(models, environment, insightId, query.from_dashboard)
  if (query.from_dashboard === undefined && query.filters_override === undefined && query.tile_filters_override === undefined) return null
  return overTile({ ...fromDashboard, ...override }, tile)
}
