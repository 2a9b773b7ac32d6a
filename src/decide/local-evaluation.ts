import type { FastifyPluginAsync } from 'fastify'
import type { JsonObject } from '../eventlog/port.js'
import { principalOf } from '../auth/authenticate.js'
import { PermissionDenied, NotFound } from '../kernel/errors.js'
import type { Environment } from '../http/environment-scope.js'
import type { ReadModels } from '../../projections/read-models.js'
import { FlagDefinitionCache } from './flag-cache.js'

/**
 * `GET /api/feature_flag/local_evaluation`: an environment's flag definitions for server SDKs
 * that evaluate locally. The environment is the one whose project token is in `token`, else the
 * caller's first.
 */
export const localEvaluationRoutes: FastifyPluginAsync<{ models: ReadModels }> = async (app, { models }) => {
  const flags = new FlagDefinitionCache(models)

  app.get('/api/feature_flag/local_evaluation', { config: { scopes: ['feature_flag:read'] } }, async (request) => {
    const { user } = principalOf(request)
    const token = (request.query as Record<string, unknown>)['token']
    const [environment] = typeof token === 'string' && token !== ''
      ? await models.find<Environment>('environments', { where: { api_token: token }, limit: 1 })
      : await models.find<Environment>('environments', { where: { organization: user.organization_id }, orderBy: [['id', 'asc']], limit: 1 })
    if (!environment) throw new NotFound('Project not found.')
    if (environment.organization !== user.organization_id) throw new PermissionDenied("You don't have access to the project.")
    const { definitions } = await flags.forEnvironment(environment.id)
    return { flags: definitions.flags, group_type_mapping: definitions.group_type_mapping ?? {}, cohorts: definitions.cohorts ?? {} } satisfies JsonObject
  })
}
