import type { FastifyPluginAsync } from 'fastify'
import { commandContext } from '../http/command-context.js'
import { parseBody } from '../http/drf.js'
import { environmentOf } from '../http/environment-scope.js'
import { ScopedIdParams } from '../http/zod.js'
import { NotFound } from '../kernel/errors.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { InsightResults } from './results.js'
import { sharingBody } from './schemas.js'
import { insightSharingJson, sharedInsightJson } from './serialize.js'
import { liveInsight, setInsightSharing, type InsightDeps } from './service.js'

/** An insight's sharing configuration, as a dashboard's; its token is fixed when the insight is created. */
export const insightSharingRoutes: FastifyPluginAsync<InsightDeps> = async (app, deps) => {
  const { models } = deps
  app.get<{ Params: { project_id: string; id: string } }>('/insights/:id/sharing/', {
    schema: { params: ScopedIdParams }, config: { scopes: ['sharing_configuration:read'] },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    return insightSharingJson(await liveInsight(models, environment, request.params.id))
  })

  app.patch<{ Params: { project_id: string; id: string } }>('/insights/:id/sharing/', {
    schema: { params: ScopedIdParams }, config: { scopes: ['sharing_configuration:write'] },
  }, async (request) => {
    const environment = await environmentOf(request, models)
    const insight = await liveInsight(models, environment, request.params.id)
    const body = parseBody(sharingBody, request.body)
    return insightSharingJson(await setInsightSharing(deps, insight, body.enabled, commandContext(request)))
  })
}

/**
 * What a sharing token opens when it is an insight's: the insight without user details, its
 * results under the mode PostHog gives shared views by default (`lazy_async`); null when the
 * token is no live, shared insight's.
 */
export const sharedInsightView = async (deps: { models: ReadModels; insightResults: InsightResults }, token: string) => {
  const [insight] = await deps.models.find('insights', { where: { access_token: token }, limit: 1 })
  if (!insight || !insight.sharing.enabled || insight.deleted) return null
  const environment = await deps.models.get('environments', String(insight.environment_id))
  if (!environment) throw new NotFound()
  return { insight: sharedInsightJson(insight, await deps.insightResults(environment, insight, 'lazy_async')) }
}
