import type { FastifyPluginAsync } from 'fastify'
import type { JsonObject } from '../eventlog/port.js'
import { activityPage } from '../activity/activity-log.js'
import { stateAsOf } from '../eventlog/as-of.js'
import { AsOfQuery, DetailParams, cutoffAt } from '../http/as-of.js'
import { queryOf, ScopedIdParams, ScopedParams, type ZodTypeProvider } from '../http/zod.js'
import { basicUsers } from '../accounts/user-lookup.js'
import { commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { environmentOf, methodNotAllowed } from '../http/environment-scope.js'
import { pageOf, paginated } from '../http/pagination.js'
import { NotFound } from '../kernel/errors.js'
import { pickDefined } from '../kernel/pick-defined.js'
import { normaliseTags } from '../dashboards/schemas.js'
import { flagActivity } from './activity.js'
import { flagStream, type FlagFields } from './events.js'
import { DEFAULT_FILTERS, createFlagBody, updateFlagBody } from './schemas.js'
import { flagJson } from './serialize.js'
import { createFlag, findFlag, updateFlag, type FlagDeps } from './service.js'
import { evolveFlag, type FeatureFlag } from './state.js'

const READ = { scopes: ['feature_flag:read'] }
const WRITE = { scopes: ['feature_flag:write'] }

/** Feature flags of one environment: list, create, get, PATCH (active, soft delete, restore), 405 on DELETE, activity. */
export const flagRoutes: FastifyPluginAsync<FlagDeps> = async (plain, deps) => {
  useFormBodies(plain)
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const { models } = deps
  const respond = async (flag: FeatureFlag) => flagJson(flag, await basicUsers(models, [flag.created_by, flag.last_modified_by]))
  const live = async (environment: Parameters<typeof findFlag>[1], id: string) => {
    const flag = await findFlag(models, environment, id)
    if (flag.deleted) throw new NotFound()
    return flag
  }

  app.get('/feature_flags/', { config: READ, schema: { params: ScopedParams, querystring: queryOf('search', 'active') } }, async (request) => {
    const environment = await environmentOf(request, models)
    const { query } = request
    const all = await models.find('feature_flags', { where: { environment_id: environment.id, deleted: false }, orderBy: [['id', 'desc']] })
    const search = query.search?.toLowerCase()
    const listed = all
      .filter((f) => query.active === undefined || String(f.active) === query.active)
      .filter((f) => search === undefined || f.key.toLowerCase().includes(search) || f.name.toLowerCase().includes(search))
    const page = pageOf(request.query)
    const slice = listed.slice(page.offset, page.offset + page.limit)
    const users = await basicUsers(models, slice.flatMap((f) => [f.created_by, f.last_modified_by]))
    return paginated(request, page, listed.length, slice.map((f) => flagJson(f, users)))
  })

  app.post('/feature_flags/', { config: WRITE, schema: { params: ScopedParams } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const body = parseBody(createFlagBody, request.body)
    const fields: FlagFields = {
      key: body.key, name: body.name ?? '', filters: (body.filters ?? DEFAULT_FILTERS) as JsonObject, active: body.active ?? true,
      ensure_experience_continuity: body.ensure_experience_continuity ?? false, tags: normaliseTags(body.tags ?? []),
      is_remote_configuration: body.is_remote_configuration ?? false,
    }
    const context = commandContext(request)
    let flag = await createFlag(deps, environment, fields, context)
    if (body.deleted === true) flag = await updateFlag(deps, flag, {}, true, context)
    return reply.status(201).send(await respond(flag))
  })

  app.get('/feature_flags/:id/', {
    config: READ, schema: { params: DetailParams, querystring: AsOfQuery },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const { as_of: asOf } = request.query
    if (asOf === undefined) return respond(await live(environment, request.params.id))
    const current = await findFlag(models, environment, request.params.id)
    const past = await stateAsOf(deps.log, flagStream(current.id), evolveFlag, null, cutoffAt(asOf))
    if (!past) throw new NotFound()
    return respond(past)
  })

  app.patch('/feature_flags/:id/', { config: WRITE, schema: { params: ScopedIdParams } }, async (request) => {
    const environment = await environmentOf(request, models)
    const flag = await findFlag(models, environment, request.params.id)
    const { deleted, ...input } = parseBody(updateFlagBody, request.body)
    const changes: Partial<FlagFields> = pickDefined(input, ['key', 'active'])
    if (input.name !== undefined) changes.name = input.name ?? ''
    if (input.filters !== undefined) changes.filters = input.filters as JsonObject
    if (input.ensure_experience_continuity !== undefined) changes.ensure_experience_continuity = input.ensure_experience_continuity ?? false
    if (input.tags !== undefined) changes.tags = normaliseTags(input.tags)
    if (input.is_remote_configuration !== undefined) changes.is_remote_configuration = input.is_remote_configuration ?? false
    return respond(await updateFlag(deps, flag, changes, deleted, commandContext(request)))
  })

  // Flags are never removed: PATCH `deleted: true` soft-deletes, DELETE is refused with a bare 405.
  app.delete('/feature_flags/:id/', { config: WRITE, schema: { params: ScopedIdParams } }, methodNotAllowed(models))

  app.get('/feature_flags/:id/activity/', { config: READ, schema: { params: ScopedIdParams } }, async (request) => {
    const flag = await findFlag(models, await environmentOf(request, models), request.params.id)
    return activityPage(request, deps, flagActivity, flagStream(flag.id), String(flag.id))
  })
}
