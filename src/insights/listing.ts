import type { JsonObject } from '../eventlog/port.js'
import { listOrderKey } from '../dashboards/list-order.js'
import { ValidationFailed } from '../kernel/errors.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { InsightDocument } from './document.js'
import type { DashboardTileRef } from './tiles.js'

/** The list's query parameters, as given. */
export interface InsightListQuery {
  readonly saved?: string | undefined
  readonly short_id?: string | undefined
  readonly search?: string | undefined
  readonly dashboards?: string | undefined
  readonly tags?: string | undefined
  readonly created_by?: string | undefined
  readonly favorited?: string | undefined
  readonly user?: string | undefined
  readonly insight?: string | undefined
  readonly order?: string | undefined
}

/** What a list item is filtered and ordered by; the page's insights are read whole afterwards. */
export type InsightSummary = Pick<InsightDocument,
  'id' | 'short_id' | 'name' | 'derived_name' | 'description' | 'tags' | 'saved' | 'favorited' | 'created_by' | 'order'
  | 'created_at' | 'last_modified_at' | 'updated_at' | 'kind'>

const SUMMARY_FIELDS: readonly (keyof InsightSummary)[] = [
  'id', 'short_id', 'name', 'derived_name', 'description', 'tags', 'saved', 'favorited', 'created_by', 'order',
  'created_at', 'last_modified_at', 'updated_at', 'kind',
]

/** Python's `str_to_bool`, which PostHog reads `?saved=` and `?basic=` with. */
export const truthy = (value: string | undefined): boolean =>
  value !== undefined && ['y', 'yes', 't', 'true', 'on', '1'].includes(value.trim().toLowerCase())

/** A list parameter given as JSON (`[1, 2]`); a single value stands for a list of one. */
const jsonList = <T>(raw: string, attr: string, item: (value: unknown) => value is T, example: string): T[] => {
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    value = undefined
  }
  const list = Array.isArray(value) ? value : [value]
  if (value === undefined || !list.every(item)) throw new ValidationFailed(`${attr} must be a JSON array, e.g. ${example}.`, attr)
  return list
}

const isId = (value: unknown): value is number => Number.isSafeInteger(value)
const isText = (value: unknown): value is string => typeof value === 'string'

type OrderField = keyof Omit<InsightSummary, 'tags' | 'kind'>
const ORDER_FIELDS: readonly OrderField[] = [
  'id', 'short_id', 'name', 'derived_name', 'description', 'saved', 'favorited', 'order', 'created_at', 'last_modified_at', 'updated_at',
]
const TEXT_FIELDS: ReadonlySet<OrderField> = new Set(['name', 'derived_name', 'description'])

/** `?order=field` or `-field`; PostHog's default is its `order` column. */
const orderOf = (raw: string | undefined): { field: OrderField; descending: boolean } => {
  const text = raw === undefined || raw === '' ? 'order' : raw
  const descending = text.startsWith('-')
  const field = (descending ? text.slice(1) : text) as OrderField
  if (!ORDER_FIELDS.includes(field)) {
    throw new ValidationFailed(`Cannot order insights by "${text}": one of ${ORDER_FIELDS.join(', ')}, with a leading - for descending.`, 'order')
  }
  return { field, descending }
}

type Sortable = string | number | boolean | null

const sortValue = (insight: InsightSummary, field: OrderField): Sortable => {
  const value = insight[field] as Sortable
  return TEXT_FIELDS.has(field) && value !== null ? listOrderKey(String(value)) : value
}

/** As PostgreSQL orders: nulls last going up and first going down; equal values by id. */
const compare = (field: OrderField, descending: boolean) => (a: InsightSummary, b: InsightSummary): number => {
  const x = sortValue(a, field)
  const y = sortValue(b, field)
  let order = 0
  if (x === null || y === null) order = x === y ? 0 : x === null ? 1 : -1
  else order = x < y ? -1 : x > y ? 1 : 0
  return (descending ? -order : order) || a.id - b.id
}

const matchesSearch = (insight: InsightSummary, search: string): boolean =>
  [insight.name, insight.derived_name, insight.description, ...insight.tags].some((text) => text !== null && text.toLowerCase().includes(search))

/** Creators' uuids by the users' integer ids, which `created_by` names. */
const creatorsOf = async (models: ReadModels, ids: readonly number[]): Promise<Set<string>> => {
  const uuids = new Set<string>()
  for (const id of new Set(ids)) for (const user of await models.find('users', { where: { id }, limit: 1 })) uuids.add(String(user['uuid']))
  return uuids
}

/**
 * The environment's live insights that pass the list's filters, in its order (PostHog's
 * `InsightViewSet` filters: `saved`, `short_id`, `search`, `dashboards`, `tags`, `created_by`,
 * `favorited`, `user`, `insight`, `order`). The store selects by environment and the equality
 * filters and reads only summaries; the rest is filtered here.
 */
export const listInsights = async (
  models: ReadModels, environmentId: number, query: InsightListQuery, tiles: ReadonlyMap<number, readonly DashboardTileRef[]>, caller: string,
): Promise<InsightSummary[]> => {
  const { field, descending } = orderOf(query.order)
  const where: Record<string, string | number | boolean> = { environment_id: environmentId, deleted: false }
  if (query.short_id !== undefined) where['short_id'] = query.short_id
  // Present at all, `favorited` lists favourites and `user` the caller's own, as in PostHog.
  if (query.favorited !== undefined) where['favorited'] = true
  if (query.user !== undefined) where['created_by'] = caller
  let listed = await models.find('insights', { where, fields: SUMMARY_FIELDS }) as JsonObject[] as InsightSummary[]
  if (query.saved !== undefined) {
    const saved = truthy(query.saved)
    listed = listed.filter((insight) => (saved ? insight.saved || (tiles.get(insight.id)?.length ?? 0) > 0 : !insight.saved))
  }
  if (query.search !== undefined && query.search !== '') {
    const search = query.search.toLowerCase()
    listed = listed.filter((insight) => matchesSearch(insight, search))
  }
  if (query.dashboards !== undefined) {
    const wanted = jsonList(query.dashboards, 'dashboards', isId, '[1, 2]')
    listed = listed.filter((insight) => wanted.every((id) => tiles.get(insight.id)?.some((tile) => tile.dashboard_id === id)))
  }
  if (query.tags !== undefined) {
    const wanted = new Set(jsonList(query.tags, 'tags', isText, '["growth"]').map((tag) => tag.trim().toLowerCase()))
    listed = listed.filter((insight) => insight.tags.some((tag) => wanted.has(tag)))
  }
  if (query.created_by !== undefined) {
    const creators = await creatorsOf(models, jsonList(query.created_by, 'created_by', isId, '[1, 42]'))
    listed = listed.filter((insight) => creators.has(insight.created_by))
  }
  if (query.insight !== undefined) {
    const kind = query.insight.toUpperCase()
    listed = listed.filter((insight) => insight.kind === kind)
  }
  return listed.sort(compare(field, descending))
}
