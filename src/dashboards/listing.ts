import type { ReadModels } from '../readstore/read-models.js'
import type { Page } from '../http/pagination.js'
import type { DashboardSummary } from './serialize.js'

/** What a list item shows or decides permissions by: no tiles, filters or variables are read. */
const SUMMARY_FIELDS = [
  'id', 'name', 'description', 'pinned', 'created_at', 'created_by', 'deleted', 'creation_mode', 'tags',
  'restriction_level', 'environment_id', 'collaborators', 'sharing.enabled',
]

export interface DashboardListFilter {
  readonly environmentId: number
  /** Only dashboards with this tag (lower case, as tags are stored). */
  readonly tag: string | null
  readonly creationMode: string | null
}

/**
 * One page of an environment's live dashboards in PostHog's order (`-pinned`, then `name`, by the
 * key `list_order` holds), with how many match in all. The store filters, orders and pages, so a
 * call reads one page of summaries whatever the environment holds.
 */
export const listDashboards = async (
  models: ReadModels, filter: DashboardListFilter, page: Page,
): Promise<{ count: number; dashboards: DashboardSummary[] }> => {
  const where = { environment_id: filter.environmentId, deleted: false, ...(filter.creationMode === null ? {} : { creation_mode: filter.creationMode }) }
  const contains = filter.tag === null ? undefined : { tags: filter.tag }
  const [count, dashboards] = await Promise.all([
    models.count('dashboards', where, contains),
    models.find('dashboards', {
      where, contains, orderBy: [['pinned', 'desc'], ['list_order', 'asc'], ['id', 'asc']], limit: page.limit, offset: page.offset, fields: SUMMARY_FIELDS,
    }),
  ])
  return { count, dashboards }
}
