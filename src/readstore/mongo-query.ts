import type { Filter, FindOptions, SortDirection } from 'mongodb'
import type { FindQuery } from './port.js'
import { storedPath, type StoredDocument } from './mongo-keys.js'

/**
 * `null` matches documents where the field is null or missing, as `json_extract(...) IS NULL`
 * does in the SQLite store. Equality on an array field matches any element (Mongo's rule), which
 * is also what `contains` asks for.
 */
export const filterOf = (where: FindQuery['where'], contains?: FindQuery['contains']): Filter<StoredDocument> =>
  Object.fromEntries([...Object.entries(where ?? {}), ...Object.entries(contains ?? {})].map(([field, value]) => [storedPath(field), value]))

/**
 * The options of `collection.find` for a query: the sort with `_id` last (the SQLite store's `id
 * ASC`), skip and limit, and a projection of the requested fields. Null when the query asks for no
 * rows: SQLite reads LIMIT 0 as none, Mongo as no limit.
 */
export const findOptionsOf = (query: FindQuery): FindOptions | null => {
  if (query.limit === 0) return null
  const sort = new Map<string, SortDirection>()
  for (const [field, direction] of query.orderBy ?? []) {
    const path = storedPath(field)
    if (!sort.has(path)) sort.set(path, direction === 'desc' ? -1 : 1)
  }
  sort.set('_id', 1)
  // A negative limit means "one batch of that many" to Mongo, and no limit to SQLite.
  const limit = query.limit !== undefined && query.limit > 0 ? { limit: query.limit } : {}
  // An empty projection would mean the whole document to Mongo; `_id` alone leaves nothing once it is taken off.
  const projection = query.fields === undefined ? {}
    : { projection: query.fields.length === 0 ? { _id: 1 } : Object.fromEntries(query.fields.map((field) => [storedPath(field), 1])) }
  return { sort, skip: Math.max(0, query.offset ?? 0), ...limit, ...projection }
}
