import type { FastifyPluginAsync } from 'fastify'
import type { ReadModels } from '../readstore/read-models.js'
import { environmentOf } from '../http/environment-scope.js'
import { pageOf, paginated } from '../http/pagination.js'
import { queryOf, ScopedIdParams, ScopedParams, type ZodTypeProvider } from '../http/zod.js'
import { NotFound, ValidationFailed } from '../kernel/errors.js'
import { PersonListResponse, PersonResponse, personShapeOf } from './person-shape.js'
import { distinctIdPagesOf, personForDistinctId } from './read.js'
import { personKey, type PersonRecord } from './records.js'

export interface PersonRouteDeps {
  readonly models: ReadModels
}

const READ = { scopes: ['person:read'] }
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i

const text = (value: string | undefined): string | null => (value !== undefined && value !== '' ? value : null)

/** The persons' shapes, each with its distinct ids. */
const personShapes = (models: ReadModels, persons: readonly PersonRecord[]) =>
  Promise.all(persons.map(async (person) => personShapeOf(person, await distinctIdPagesOf(models, person))))

/** `/persons/`: the environment's persons, newest first, by distinct id or email when asked. */
export const personRoutes: FastifyPluginAsync<PersonRouteDeps> = async (plain, { models }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>()
  app.get('/persons/', {
    config: READ, schema: { params: ScopedParams, querystring: queryOf('distinct_id', 'email'), response: { 200: PersonListResponse } },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const { query } = request
    const page = pageOf(query)
    const distinctId = text(query.distinct_id)
    if (distinctId !== null) {
      const person = await personForDistinctId(models, environment.id, distinctId)
      const found = person ? [person] : []
      return paginated(request, page, found.length, await personShapes(models, found.slice(page.offset, page.offset + page.limit)))
    }
    const email = text(query.email)
    const where = { environment_id: environment.id, ...(email !== null ? { 'properties.email': email } : {}) }
    const [count, persons] = await Promise.all([
      models.count('persons', where),
      models.find('persons', { where, orderBy: [['created_at', 'desc'], ['id', 'desc']], limit: page.limit, offset: page.offset }),
    ])
    return paginated(request, page, count, await personShapes(models, persons))
  })

  app.get('/persons/:id/', { config: READ, schema: { params: ScopedIdParams, response: { 200: PersonResponse } } }, async (request) => {
    const environment = await environmentOf(request, models)
    const { id } = request.params
    let person: PersonRecord | null = null
    if (UUID.test(id)) {
      person = await models.get('persons', personKey(environment.id, formatUuid(id)))
    } else if (/^\d+$/.test(id)) {
      ;[person = null] = await models.find('persons', { where: { environment_id: environment.id, id: Number(id) }, limit: 1 })
    } else {
      throw new ValidationFailed(
        `The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${id} instead.`,
      )
    }
    if (!person) throw new NotFound()
    return personShapeOf(person, await distinctIdPagesOf(models, person))
  })
}

const formatUuid = (id: string): string => {
  const hex = id.replace(/-/g, '').toLowerCase()
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
