import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import { principalOf } from '../auth/authenticate.js'
import { checkKeyReachesEnvironment } from '../auth/key-reach.js'
import { environmentOf } from '../http/environment-scope.js'
import type { Environment } from '../readstore/environment.js'
import type { ZodTypeProvider } from '../http/zod.js'
import type { FlagDeps } from './service.js'

const Params = z.object({ project_id: z.string().max(200), id: z.string().min(1).max(400) })
const Query = z.looseObject({ token: z.string().max(200).optional() })

/**
 * `GET …/feature_flags/{id or key}/remote_config`: the `true` payload of a remote config flag, as
 * posthog-node's `getRemoteConfigPayload` asks for it (with a personal key, and the project token
 * naming the environment). Like PostHog, a flag that is missing or not a remote config flag is a
 * bare 404, and a flag without a payload answers `null`.
 */
export const remoteConfigRoutes: FastifyPluginAsync<FlagDeps> = async (app, { models }) => {
  const environmentFor = async (request: Parameters<typeof environmentOf>[0], token: string | undefined): Promise<Environment | null> => {
    if (token === undefined || token === '') return environmentOf(request, models)
    const [environment] = await models.find('environments', { where: { api_token: token }, limit: 1 })
    if (environment) checkKeyReachesEnvironment(principalOf(request), environment)
    return environment && environment.organization === principalOf(request).user.organization_id ? environment : null
  }

  app.withTypeProvider<ZodTypeProvider>().get('/feature_flags/:id/remote_config', {
    config: { scopes: ['feature_flag:read'] },
    schema: { params: Params, querystring: Query },
  }, async (request, reply) => {
    const environment = await environmentFor(request, request.query.token)
    if (!environment) return reply.status(404).send()
    const { id } = request.params
    const [flag] = /^\d+$/.test(id)
      ? [await models.get('feature_flags', String(Number(id)))]
      : await models.find('feature_flags', { where: { environment_id: environment.id, key: id, deleted: false }, limit: 1 })
    if (!flag || flag.environment_id !== environment.id || flag.deleted || flag.is_remote_configuration !== true) return reply.status(404).send()
    const payloads = (flag.filters['payloads'] ?? {}) as Record<string, unknown>
    return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(payloads['true'] ?? null))
  })
}
