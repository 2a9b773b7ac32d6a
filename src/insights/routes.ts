import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import { activityPage, withUsers } from '../activity/activity-log.js'
import { environmentActivityLog } from '../activity/environment-log.js'
import { stateAsOf } from '../eventlog/as-of.js'
import { AsOfQuery, DetailParams, cutoffAt } from '../http/as-of.js'
import { actorOf, commandContext } from '../http/command-context.js'
import { parseBody, useFormBodies } from '../http/drf.js'
import { environmentOf, methodNotAllowed } from '../http/environment-scope.js'
import { pageOf, paginated } from '../http/pagination.js'
import { queryOf, ScopedIdParams, ScopedParams, type ZodTypeProvider } from '../http/zod.js'
import { NotFound } from '../kernel/errors.js'
import { insightActivity } from './activity.js'
import { resultsAsOf } from './as-of/results-as-of.js'
import { insightAudit } from './audited.js'
import { readContextFilters } from './dashboard-context.js'
import { underDashboardFilters } from './dashboard-filters.js'
import { insightStream } from './events.js'
import { listInsights, truthy } from './listing.js'
import { presentInsight, presentInsights, presentPast, type Shape } from './present.js'
import { refreshMode } from './results.js'
import { insightBody } from './schemas.js'
import { createInsight, findInsight, liveInsight, updateInsight, type InsightDeps } from './service.js'
import { evolveInsight } from './state.js'
import { tilesByInsight } from './tiles.js'

const READ = { scopes: ['insight:read'] }
const WRITE = { scopes: ['insight:write'] }
const ACTIVITY = { scopes: ['activity_log:read'] }

const ListQuery = queryOf(
  'saved', 'short_id', 'search', 'dashboards', 'tags', 'created_by', 'favorited', 'user', 'insight', 'order', 'basic', 'refresh',
)
const DetailQuery = AsOfQuery.extend({
  basic: z.string().optional(), refresh: z.string().optional(),
  from_dashboard: z.string().optional(), filters_override: z.string().optional(), tile_filters_override: z.string().optional(),
})

const shapeOf = (query: { basic?: string | undefined; refresh?: string | undefined }): Shape =>
  truthy(query.basic) ? { basic: true } : { basic: false, refresh: refreshMode(query.refresh) }

/**
 * Insights of one environment: list (with PostHog's filters), create, get by id or short id (and
 * as of a past time), PATCH (soft delete and restore, dashboards), 405 on DELETE, activity.
 */
export const insightRoutes: FastifyPluginAsync<InsightDeps> = async (plain, deps) => {
  useFormBodies(plain)
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const { models } = deps

  app.get('/insights/', { config: READ, schema: { params: ScopedParams, querystring: ListQuery } }, async (request) => {
    const environment = await environmentOf(request, models)
    const tiles = await tilesByInsight(models, environment.id)
    const listed = await listInsights(models, environment.id, request.query, tiles, actorOf(request).uuid)
    const page = pageOf(request.query)
    const insights = []
    for (const summary of listed.slice(page.offset, page.offset + page.limit)) {
      const insight = await models.get('insights', String(summary.id))
      if (insight) insights.push(insight)
    }
    return paginated(request, page, listed.length, await presentInsights(deps, environment, insights, tiles, shapeOf(request.query)))
  })

  app.post('/insights/', { config: WRITE, schema: { params: ScopedParams } }, async (request, reply) => {
    const environment = await environmentOf(request, models)
    const body = parseBody(insightBody, request.body)
    const insight = await createInsight(deps, environment, body, actorOf(request), commandContext(request))
    return reply.status(201).send(await presentInsight(deps, environment, insight, shapeOf({})))
  })

  app.get('/insights/activity/', { config: ACTIVITY, schema: { params: ScopedParams } }, async (request) => {
    const environment = await environmentOf(request, models)
    const filter = { scopes: null, itemId: null, user: null, from: null, to: null }
    const entries = await environmentActivityLog({ ...deps, audited: [insightAudit] }, environment, filter)
    const page = pageOf(request.query)
    return paginated(request, page, entries.length, await withUsers(models, entries.slice(page.offset, page.offset + page.limit)))
  })

  app.get('/insights/:id/', { config: READ, schema: { params: DetailParams, querystring: DetailQuery } }, async (request) => {
    const environment = await environmentOf(request, models)
    const { as_of: asOf } = request.query
    const shape = shapeOf(request.query)
    if (asOf === undefined) {
      const insight = await liveInsight(models, environment, request.params.id)
      // In a dashboard's context the query runs under its filters, so the results are the tile's.
      const filters = await readContextFilters(models, environment, insight.id, request.query)
      return presentInsight(deps, environment, filters ? underDashboardFilters(insight, filters) : insight, shape)
    }
    // History answers for deleted insights too: the state then, `deleted` included.
    const current = await findInsight(models, environment, request.params.id)
    const cutoff = cutoffAt(asOf)
    const past = await stateAsOf(deps.log, insightStream(current.id), evolveInsight, null, cutoff)
    if (!past) throw new NotFound()
    // Its results then too: its query run over the events and persons the log held then.
    const { results } = await resultsAsOf(deps.log, environment.id, cutoff, environment)
    return presentPast({ models, insightResults: (_environment, insight) => results(insight) }, environment, past, shape)
  })

  app.patch('/insights/:id/', { config: WRITE, schema: { params: ScopedIdParams } }, async (request) => {
    const environment = await environmentOf(request, models)
    const insight = await findInsight(models, environment, request.params.id)
    const body = parseBody(insightBody, request.body)
    const updated = await updateInsight(deps, environment, insight, body, actorOf(request), commandContext(request))
    return presentInsight(deps, environment, updated, shapeOf({}))
  })

  // Insights are never removed: PATCH `deleted: true` soft-deletes, DELETE is refused with a bare 405.
  app.delete('/insights/:id/', { config: WRITE, schema: { params: ScopedIdParams } }, methodNotAllowed(models))

  app.get('/insights/:id/activity/', { config: ACTIVITY, schema: { params: ScopedIdParams } }, async (request) => {
    const insight = await findInsight(models, await environmentOf(request, models), request.params.id)
    return activityPage(request, deps, insightActivity, insightStream(insight.id), String(insight.id))
  })
}
