import type { FastifyPluginAsync } from 'fastify'
import { queryOf, ScopedParams, type ZodTypeProvider } from '../http/zod.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { JsonObject } from '../eventlog/port.js'
import { environmentOf } from '../http/environment-scope.js'
import { ValidationFailed } from '../kernel/errors.js'
import { CHANNEL_TYPES } from './channel-type.js'
import { SESSION_PROPERTIES, VALUE_SOURCE, type SessionPropertyType } from './session-properties.js'

export interface SessionRouteDeps {
  readonly models: ReadModels
}

const READ = { scopes: ['query:read'] }
const NUMERICAL: ReadonlySet<SessionPropertyType> = new Set(['Numeric', 'Duration'])
/** The values helper answers at most this many values. */
const VALUE_LIMIT = 100

/** A property matches a search when every word of it is part of the name, ignoring case. */
const matchesSearch = (name: string, search: string): boolean =>
  search.toLowerCase().split(/\s+/).filter((word) => word !== '').every((word) => name.toLowerCase().includes(word))

/** Values that are JSON text are decoded; arrays are flattened. */
const decoded = (value: string): unknown[] => {
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    return [value]
  }
  return Array.isArray(parsed) ? parsed.flat(Infinity) : [parsed]
}

const stringValues = async (models: ReadModels, environmentId: number, source: string, search: string | null): Promise<JsonObject[]> => {
  const seen = await models.find('session_values', { where: { environment_id: environmentId, source }, orderBy: [['value', 'asc']] })
  const term = search?.toLowerCase() ?? null
  return seen
    .filter(({ value }) => term === null || value.toLowerCase().includes(term))
    .slice(0, VALUE_LIMIT)
    .flatMap(({ value }) => decoded(value).map((name) => ({ name })))
}

/**
 * `/sessions/property_definitions/` (PostHog's session property set, with `search` and
 * `is_numerical`) and `/sessions/values/` (`{results, refreshing}` with `{name}` entries).
 */
export const sessionRoutes: FastifyPluginAsync<SessionRouteDeps> = async (plain, { models }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>()
  app.get('/sessions/property_definitions/', { config: READ, schema: { params: ScopedParams, querystring: queryOf('search', 'is_numerical') } }, async (request) => {
    await environmentOf(request, models)
    const { query } = request
    const search = query.search ?? ''
    const numerical = query.is_numerical === 'true' ? true : query.is_numerical === 'false' ? false : null
    const results = SESSION_PROPERTIES
      .filter(([name, type]) => matchesSearch(name, search) && (numerical === null || NUMERICAL.has(type) === numerical))
      .map(([name, type]) => ({
        id: name, name, is_numerical: NUMERICAL.has(type), property_type: type, is_seen_on_filtered_events: null, tags: [],
      }))
    return { count: results.length, results }
  })

  app.get('/sessions/values/', { config: READ, schema: { params: ScopedParams, querystring: queryOf('key', 'value') } }, async (request) => {
    const environment = await environmentOf(request, models)
    const { query } = request
    const key = query.key !== undefined && query.key !== '' ? query.key : null
    if (key === null) throw new ValidationFailed('Key not provided')
    const search = query.value !== undefined && query.value !== '' ? query.value : null
    const type = SESSION_PROPERTIES.find(([name]) => name === key)?.[1]
    let results: JsonObject[] = []
    if (key === '$channel_type') {
      results = CHANNEL_TYPES.filter((name) => search === null || name.toLowerCase().includes(search.toLowerCase())).map((name) => ({ name }))
    } else if (type === 'Boolean') {
      results = ['1', '0'].filter((name) => search === null || name.includes(search)).map((name) => ({ name }))
    } else if (type === 'String') {
      results = await stringValues(models, environment.id, VALUE_SOURCE.get(key)!, search)
    }
    return { results, refreshing: false }
  })
}
