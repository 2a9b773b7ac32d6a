import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { z } from 'zod'
import { basicUsers } from '../accounts/user-lookup.js'
import { actorOf, commandContext } from '../http/command-context.js'
import { drfBoolean, parseBody } from '../http/drf.js'
import { environmentOf } from '../http/environment-scope.js'
import { NotFound } from '../kernel/errors.js'
import { SharedViewResponse, SharingResponse } from './schemas.js'
import { sharedDashboard, sharingJson, usersMentioned } from './serialize.js'
import { dashboardCommand, liveDashboard, type DashboardDeps, type DashboardRouteDeps } from './service.js'
import { tileInsights } from '../insights/tile-insights.js'
import { sharedInsightView } from '../insights/sharing-routes.js'
import { dashboardPage, drawCharts, insightPage, notFoundPage } from '../shared-pages/page.js'
import { prefersHtml } from '../shared-pages/negotiate.js'
import { sendPage, type Framing } from '../shared-pages/reply.js'

const sharingBody = z.object({ enabled: drfBoolean })

const Params = z.object({ project_id: z.string(), dashboard_id: z.string() })
type Params = z.infer<typeof Params>
const TokenParams = z.object({ token: z.string() })
const SHARING = { 200: SharingResponse }

/** A dashboard's sharing configuration; its token is fixed when the dashboard is created. */
export const sharingRoutes: FastifyPluginAsync<DashboardDeps> = async (app, deps) => {
  const { models } = deps
  app.get<{ Params: Params }>('/dashboards/:dashboard_id/sharing/', {
    schema: { params: Params, response: SHARING }, config: { scopes: ['sharing_configuration:read'] },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    return sharingJson(await liveDashboard(models, environment, request.params.dashboard_id))
  })

  app.patch<{ Params: Params }>('/dashboards/:dashboard_id/sharing/', {
    schema: { params: Params, response: SHARING }, config: { scopes: ['sharing_configuration:write'] },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const dashboard = await liveDashboard(models, environment, request.params.dashboard_id)
    const body = parseBody(sharingBody, request.body)
    const updated = await dashboardCommand(deps, dashboard, {
      type: 'SetSharing', actor: actorOf(request), enabled: body.enabled, at: new Date().toISOString(),
    }, commandContext(request))
    return sharingJson(updated)
  })
}

/**
 * The public, read-only view of a shared dashboard, or of a shared insight (tokens of both are
 * served at the same addresses); 404 when sharing is off, the token unknown or the resource deleted.
 * A request whose `Accept` prefers HTML to JSON (a browser's) gets the view as a page with its
 * charts drawn on the server (`src/shared-pages/`); any other gets the JSON. `/embedded/` pages
 * may be framed by any site, the others by none.
 */
export const sharedViewRoutes: FastifyPluginAsync<DashboardRouteDeps> = async (app, deps) => {
  const { models } = deps
  const view = async (token: string) => {
    const [dashboard] = await models.find('dashboards', { where: { access_token: token }, limit: 1 })
    if (!dashboard) {
      const insight = await sharedInsightView(deps, token)
      if (!insight) throw new NotFound()
      return insight
    }
    if (!dashboard.sharing.enabled || dashboard.deleted) throw new NotFound()
    const environment = await models.get('environments', String(dashboard.environment_id))
    if (!environment) throw new NotFound()
    const insights = await tileInsights(deps, environment, dashboard, 'lazy_async', 'shared')
    return { dashboard: sharedDashboard(dashboard, await basicUsers(models, usersMentioned(dashboard)), insights) }
  }
  const page = async (token: string, reply: FastifyReply, framing: Framing) => {
    let shown: Awaited<ReturnType<typeof view>>
    try {
      shown = await view(token)
    } catch (error) {
      if (error instanceof NotFound) return sendPage(reply, 404, notFoundPage(), framing)
      throw error
    }
    const charts = await drawCharts(shown)
    return sendPage(reply, 200, 'dashboard' in shown ? dashboardPage(shown.dashboard, charts) : insightPage(shown.insight, charts), framing)
  }
  for (const path of ['/shared/:token', '/shared_dashboard/:token', '/embedded/:token']) {
    const framing: Framing = path.startsWith('/embedded/') ? 'any-site' : 'none'
    app.get<{ Params: { token: string } }>(path, { schema: { params: TokenParams, response: { 200: SharedViewResponse } } }, async (request, reply) => {
      // The same address answers JSON or a page by the request's Accept, so caches must key on it.
      void reply.header('vary', 'Accept')
      if (prefersHtml(request.headers.accept)) return page(request.params.token, reply, framing)
      return view(request.params.token)
    })
  }
}
