import type { FastifyPluginAsync } from 'fastify'
import { queryOf, ScopedIdParams, ScopedParams, type ZodTypeProvider } from '../http/zod.js'
import type { ReadModels } from '../readstore/read-models.js'
import { eventKey } from './record.js'
import { environmentOf } from '../http/environment-scope.js'
import { pageOf, paginated } from '../http/pagination.js'
import { NotFound, ValidationFailed } from '../kernel/errors.js'
import { findEvents, type EventFilters } from './event-query.js'
import { eventShapes } from './event-shape.js'
import { emptyMapping, type GroupTypeMapping } from '../groups/groups.js'

export interface EventRouteDeps {
  readonly models: ReadModels
}

/** PostHog's events API belongs to its query scope. */
const READ = { scopes: ['query:read'] }
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** An ISO time; one without a zone is UTC, as PostHog reads it. */
type EventQuery = Partial<Record<'event' | 'distinct_id' | 'after' | 'before', string>>

const instantOf = (query: EventQuery, name: 'after' | 'before'): string | undefined => {
  const raw = query[name]
  if (raw === undefined || raw === '') return undefined
  const text = raw.trim()
  const zoned = /T\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(text) ? `${text}Z` : text
  const ms = Date.parse(zoned)
  if (text === '' || Number.isNaN(ms)) throw new ValidationFailed('Enter a valid date/time.', name, 'invalid')
  return new Date(ms).toISOString()
}

const filtersOf = (query: EventQuery): EventFilters => {
  const text = (name: 'event' | 'distinct_id'): string | undefined => (query[name] !== undefined && query[name] !== '' ? query[name] : undefined)
  const filters: { -readonly [K in keyof EventFilters]: EventFilters[K] } = {}
  const event = text('event')
  const distinctId = text('distinct_id')
  const after = instantOf(query, 'after')
  const before = instantOf(query, 'before')
  if (event !== undefined) filters.event = event
  if (distinctId !== undefined) filters.distinctId = distinctId
  if (after !== undefined) filters.after = after
  if (before !== undefined) filters.before = before
  return filters
}

const mappingOf = async (models: ReadModels, environmentId: number): Promise<GroupTypeMapping> =>
  (await models.get('group_type_mappings', String(environmentId))) ?? emptyMapping(environmentId)

/** `/events/`: stored events newest first, by name, distinct id and time; `/events/{uuid}/`: one event. */
export const eventRoutes: FastifyPluginAsync<EventRouteDeps> = async (plain, { models }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>()
  app.get('/events/', { config: READ, schema: { params: ScopedParams, querystring: queryOf('event', 'distinct_id', 'after', 'before') } }, async (request) => {
    const environment = await environmentOf(request, models)
    const { query } = request
    const page = pageOf(query)
    const { count, results } = await findEvents(models, environment.id, filtersOf(query), page)
    return paginated(request, page, count, await eventShapes(models, environment.id, results, await mappingOf(models, environment.id)))
  })

  app.get('/events/:id/', { config: READ, schema: { params: ScopedIdParams } }, async (request) => {
    const environment = await environmentOf(request, models)
    const { id } = request.params
    if (!UUID.test(id)) throw new ValidationFailed('Invalid UUID', null, 'invalid')
    const event = await models.get('events', eventKey(environment.id, id.toLowerCase()))
    if (!event) throw new NotFound(`No events exist for event UUID ${id}`)
    const [shape] = await eventShapes(models, environment.id, [event], await mappingOf(models, environment.id))
    return shape
  })
}
