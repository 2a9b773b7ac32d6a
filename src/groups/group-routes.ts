import type { FastifyPluginAsync } from 'fastify'
import type { ReadModels } from '../readstore/read-models.js'
import type { JsonObject } from '../eventlog/port.js'
import { environmentOf } from '../http/environment-scope.js'
import { pageOf, paginated } from '../http/pagination.js'
import { queryOf, ScopedParams, type ZodTypeProvider } from '../http/zod.js'
import { NotFound, ValidationFailed } from '../kernel/errors.js'
import type { GroupRecord } from './groups.js'
import { groupFor, groupTypesFor } from '../persons/read.js'
import { apiTime } from '../http/timestamps.js'

export interface GroupRouteDeps {
  readonly models: ReadModels
}

const READ = { scopes: ['group:read'] }

export const groupShape = (group: GroupRecord): JsonObject => ({
  group_type_index: group.group_type_index,
  group_key: group.group_key,
  group_properties: group.group_properties,
  created_at: apiTime(group.created_at),
})

const groupTypeIndexOf = (raw: string | undefined): number => {
  if (raw === undefined || raw === '') {
    throw new ValidationFailed(
      'You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.',
      'group_type_index',
    )
  }
  if (!/^-?\d+$/.test(raw.trim())) throw new ValidationFailed('A valid integer is required.', 'group_type_index', 'invalid')
  return Number(raw)
}

/** A case-insensitive match on the key or the `name` property, as PostHog's group search does. */
const matches = (group: GroupRecord, search: string): boolean => {
  const term = search.toLowerCase()
  const name = group.group_properties['name']
  return group.group_key.toLowerCase().includes(term) || (typeof name === 'string' && name.toLowerCase().includes(term))
}

/** `/groups/` (by type, newest first), `/groups/find/` (one group) and `/groups_types/`. */
export const groupRoutes: FastifyPluginAsync<GroupRouteDeps> = async (plain, { models }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const GroupQuery = queryOf('group_type_index', 'group_key', 'search')
  app.get('/groups/', { config: READ, schema: { params: ScopedParams, querystring: GroupQuery } }, async (request) => {
    const environment = await environmentOf(request, models)
    const { query } = request
    const index = groupTypeIndexOf(query.group_type_index)
    const page = pageOf(query)
    const key = query.group_key ?? null
    const where = { environment_id: environment.id, group_type_index: index, ...(key !== null ? { group_key: key } : {}) }
    const orderBy = [['created_at', 'desc']] as const
    const search = query.search !== undefined && query.search !== '' ? query.search : null
    if (search !== null) {
      const found = (await models.find('groups', { where, orderBy })).filter((group) => matches(group, search))
      return paginated(request, page, found.length, found.slice(page.offset, page.offset + page.limit).map(groupShape))
    }
    const [count, groups] = await Promise.all([
      models.count('groups', where),
      models.find('groups', { where, orderBy, limit: page.limit, offset: page.offset }),
    ])
    return paginated(request, page, count, groups.map(groupShape))
  })

  app.get('/groups/find/', { config: READ, schema: { params: ScopedParams, querystring: GroupQuery } }, async (request) => {
    const environment = await environmentOf(request, models)
    const index = groupTypeIndexOf(request.query.group_type_index)
    const key = request.query.group_key
    if (key === undefined) throw new ValidationFailed('This field is required.', 'group_key', 'required')
    const group = await groupFor(models, environment.id, index, key)
    if (!group) throw new NotFound()
    return groupShape(group)
  })

  app.get('/groups_types/', { config: READ, schema: { params: ScopedParams } }, async (request) => {
    const environment = await environmentOf(request, models)
    return (await groupTypesFor(models, environment.id)).map((type) => ({
      group_type: type.group_type,
      group_type_index: type.group_type_index,
      name_singular: null,
      name_plural: null,
      detail_dashboard: null,
      default_columns: null,
      created_at: apiTime(type.created_at),
    }))
  })
}
