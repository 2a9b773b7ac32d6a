import type { Filter, FindOptions, SortDirection } from 'mongodb'
import type { FindQuery } from './port.js'
import { storedPath, type StoredDocument } from './mongo-keys.js'

/**
 * `null` matches documents where the field is null or missing, as `json_extract(...) IS NULL`
 * does in the SQLite store. Equality on an array field matches any element (Mongo's rule), which
 * is also what `contains` asks for.
 */
export const filterOf = (query: Pick<FindQuery, 'where' | 'contains' | 'range' | 'oneOf' | 'after' | 'orderBy'>): Filter<StoredDocument> => {
  const clauses: Filter<StoredDocument>[] = []
  for (const [field, value] of [...Object.entries(query.where ?? {}), ...Object.entries(query.contains ?? {})]) clauses.push({ [storedPath(field)]: value })
  // Mongo compares a bound only with values of its own type, as the SQLite store's type checks do.
  for (const [field, bounds] of Object.entries(query.range ?? {})) {
    const condition = Object.fromEntries(Object.entries(bounds).filter(([, bound]) => bound !== undefined).map(([name, bound]) => [`$${name}`, bound]))
    if (Object.keys(condition).length > 0) clauses.push({ [storedPath(field)]: condition })
  }
  for (const [field, values] of Object.entries(query.oneOf ?? {})) clauses.push({ [storedPath(field)]: { $in: [...values] } })
  if (query.after !== undefined) clauses.push(afterFilter(query.orderBy ?? [], query.after))
  // One flat filter when no two clauses name the same field, as most queries are; else all of them.
  const flat: Filter<StoredDocument> = {}
  for (const clause of clauses) {
    const [key] = Object.keys(clause)
    if (key === undefined || key in flat) return { $and: clauses }
    Object.assign(flat, clause)
  }
  return flat
}

/** Documents after `after` in the order of `orderBy`: greater in the first field that differs. */
const afterFilter = (orderBy: NonNullable<FindQuery['orderBy']>, after: NonNullable<FindQuery['after']>): Filter<StoredDocument> => {
  if (orderBy.some(([, direction]) => direction !== 'asc')) throw new TypeError('a query read after a document orders every field ascending')
  if (after.length !== orderBy.length || orderBy.length === 0) throw new TypeError('after names one value per orderBy field')
  const keys = orderBy.map(([field]) => storedPath(field))
  return {
    $or: keys.map((key, i) => ({
      ...Object.fromEntries(keys.slice(0, i).map((earlier, j) => [earlier, after[j]])),
      [key]: { $gt: after[i] },
    })),
  }
}

/**
 * The projection of `fields` at their stored paths. None is `_id` alone, which leaves nothing once
 * it is taken off: an empty projection would mean the whole document to Mongo.
 */
export const fieldsProjection = (fields: readonly string[]): Record<string, 1> =>
  fields.length === 0 ? { _id: 1 } : Object.fromEntries(fields.map((field) => [storedPath(field), 1]))

/**
 * The options of `collection.find` for a query: the sort with `_id` last (the SQLite store's `id
 * ASC`) unless the order is unique, skip and limit, and a projection of the requested fields. Null when the query asks for no
 * rows: SQLite reads LIMIT 0 as none, Mongo as no limit.
 */
export const findOptionsOf = (query: FindQuery): FindOptions | null => {
  if (query.limit === 0) return null
  const sort = new Map<string, SortDirection>()
  for (const [field, direction] of query.orderBy ?? []) {
    const path = storedPath(field)
    if (!sort.has(path)) sort.set(path, direction === 'desc' ? -1 : 1)
  }
  if (query.uniqueOrder !== true || sort.size === 0) sort.set('_id', 1)
  // A negative limit means "one batch of that many" to Mongo, and no limit to SQLite.
  const limit = query.limit !== undefined && query.limit > 0 ? { limit: query.limit } : {}
  const projection = query.fields === undefined ? {} : { projection: fieldsProjection(query.fields) }
  return { sort, skip: Math.max(0, query.offset ?? 0), ...limit, ...projection }
}
