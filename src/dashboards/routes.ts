import type { FastifyPluginAsync } from 'fastify'
import { activityPage } from '../activity/activity-log.js'
import { stateAsOf } from '../eventlog/as-of.js'
import { AsOfQuery, DetailParams, cutoffAt } from '../http/as-of.js'
import { z } from 'zod'
import { queryOf, ScopedIdParams, ScopedParams, type ZodTypeProvider } from '../http/zod.js'
import { NotFound } from '../kernel/errors.js'
import { basicUsers } from '../accounts/user-lookup.js'
import { actorOf, commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { environmentOf, methodNotAllowed } from '../http/environment-scope.js'
import { pageOf, paginated } from '../http/pagination.js'
import { dashboardActivity } from './activity.js'
import { listDashboards } from './listing.js'
import { dashboardStream } from './events.js'
import { createDashboardBody, DashboardDetailResponse, DashboardListResponse, moveTileBody, updateDashboardBody } from './schemas.js'
import { dashboardBasic, dashboardDetail, usersMentioned } from './serialize.js'
import { createDashboard, findDashboard, liveDashboard, updateDashboard, type DashboardRouteDeps } from './service.js'
import { refreshMode, type RefreshMode } from '../insights/results.js'
import { pastTileInsights, tileInsights } from '../insights/tile-insights.js'
import { resultsAsOf } from '../insights/as-of/results-as-of.js'
import type { Environment } from '../readstore/environment.js'
import { createTemplateInsights } from './template-insights.js'
import { moveTile } from './tile-moves.js'
import { evolveDashboard, type Dashboard } from './state.js'

const READ = { scopes: ['dashboard:read'] }
const WRITE = { scopes: ['dashboard:write'] }
const DETAIL = { 200: DashboardDetailResponse }

const IdParams = ScopedIdParams
type IdParams = z.infer<typeof IdParams>

const DetailQuery = AsOfQuery.extend({ refresh: z.string().optional() })

/** Dashboards of one environment: list, create, get, PATCH (soft delete and restore), 405 on DELETE, move_tile, activity. */
export const dashboardRoutes: FastifyPluginAsync<DashboardRouteDeps> = async (app, deps) => {
  useFormBodies(app)
  const { models } = deps

  /** The detail shape, insight tiles showing their insights with results under `refresh` (from the cache unless asked). */
  const detail = async (environment: Environment, dashboard: Dashboard, actor: ReturnType<typeof actorOf>, refresh: RefreshMode = 'force_cache') => {
    const [users, insights] = await Promise.all([basicUsers(models, usersMentioned(dashboard)), tileInsights(deps, environment, dashboard, refresh)])
    return dashboardDetail(dashboard, actor, users, insights)
  }

  app.withTypeProvider<ZodTypeProvider>().get('/dashboards/', {
    config: READ, schema: { params: ScopedParams, querystring: queryOf('tags', 'creation_mode'), response: { 200: DashboardListResponse } },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const { query } = request
    const page = pageOf(query)
    const filter = { environmentId: environment.id, tag: query.tags?.toLowerCase() ?? null, creationMode: query.creation_mode ?? null }
    const { count, dashboards } = await listDashboards(models, filter, page)
    const users = await basicUsers(models, dashboards.map((d) => d.created_by))
    const actor = actorOf(request)
    return paginated(request, page, count, dashboards.map((d) => dashboardBasic(d, actor, users)))
  })

  app.post('/dashboards/', { config: WRITE, schema: { params: ScopedParams, response: { 201: DashboardDetailResponse } } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const body = parseBody(createDashboardBody, request.body)
    const context = commandContext(request)
    const actor = actorOf(request)
    const created = await createDashboard(deps, environment, body, context)
    const dashboard = await createTemplateInsights(deps, environment, created, body.use_template, actor, context)
    return reply.status(201).send(await detail(environment, dashboard, actor))
  })

  app.withTypeProvider<ZodTypeProvider>().get('/dashboards/:id/', {
    config: READ, schema: { params: DetailParams, querystring: DetailQuery, response: DETAIL },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const { as_of: asOf } = request.query
    if (asOf === undefined) return detail(environment, await liveDashboard(models, environment, request.params.id), actorOf(request), refreshMode(request.query.refresh))
    // History answers for deleted dashboards too: the state then, `deleted` included.
    const current = await findDashboard(models, environment, request.params.id)
    const cutoff = cutoffAt(asOf)
    const past = await stateAsOf(deps.log, dashboardStream(current.id), evolveDashboard, null, cutoff)
    if (!past) throw new NotFound()
    // Its insight tiles show their insights as of the same moment, with the results they had then.
    const { results } = await resultsAsOf(deps.log, environment.id, cutoff, environment)
    const [users, insights] = await Promise.all([basicUsers(models, usersMentioned(past)), pastTileInsights(deps, environment, past, cutoff, results)])
    return dashboardDetail(past, actorOf(request), users, insights)
  })

  app.patch<{ Params: IdParams }>('/dashboards/:id/', { schema: { params: IdParams, response: DETAIL }, config: WRITE }, async (request) => {
    const environment = await environmentOf(request, models)
    const dashboard = await findDashboard(models, environment, request.params.id)
    const body = parseBody(updateDashboardBody, request.body)
    const actor = actorOf(request)
    return detail(environment, await updateDashboard(deps, dashboard, body, actor, commandContext(request)), actor)
  })

  // Hard deletion is refused with a bare 405; PATCH `deleted: true` soft-deletes.
  app.delete<{ Params: IdParams }>('/dashboards/:id/', { schema: { params: IdParams }, config: WRITE }, methodNotAllowed(models))

  app.patch<{ Params: IdParams }>('/dashboards/:id/move_tile/', {
    schema: { params: IdParams, response: DETAIL }, config: { scopes: [], scopedKeys: false },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const source = await liveDashboard(models, environment, request.params.id)
    const body = parseBody(moveTileBody, request.body)
    const destination = await liveDashboard(models, environment, body.toDashboard)
    const actor = actorOf(request)
    return detail(environment, await moveTile(deps, source, destination, body.tile.id, actor, commandContext(request)), actor)
  })

  app.get<{ Params: IdParams }>('/dashboards/:id/activity/', { schema: { params: IdParams }, config: READ }, async (request) => {
    const environment = await environmentOf(request, models)
    const dashboard = await findDashboard(models, environment, request.params.id)
    return activityPage(request, deps, dashboardActivity, dashboardStream(dashboard.id), String(dashboard.id))
  })
}
