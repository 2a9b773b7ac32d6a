import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { createHash } from 'node:crypto'
import { z } from 'zod'
import type { JsonObject } from '../eventlog/port.js'
import { principalOf } from '../auth/authenticate.js'
import { checkKeyReachesEnvironment } from '../auth/key-reach.js'
import { PermissionDenied, NotFound } from '../kernel/errors.js'
import type { ZodTypeProvider } from '../http/zod.js'
import type { ReadModels } from '../readstore/read-models.js'
import { FlagDefinitionCache } from './flag-cache.js'

const Query = z.looseObject({ token: z.string().max(200).optional(), send_cohorts: z.string().optional() })

/** An If-None-Match header names our current ETag (or is `*`). */
const matches = (header: string | undefined, etag: string): boolean =>
  header !== undefined && header.split(',').some((tag) => {
    const value = tag.trim()
    return value === '*' || value === etag || value === `W/${etag}`
  })

/**
 * An environment's flag definitions for server SDKs that evaluate locally, in two places:
 * `GET /api/feature_flag/local_evaluation` (posthog-node up to 5.29.3, posthog-python) and
 * `GET /flags/definitions` (newer posthog-node), which also answers an ETag and honours
 * `If-None-Match` with a 304. The environment is the one whose project token is in `token`,
 * else the caller's first.
 */
export const localEvaluationRoutes: FastifyPluginAsync<{ models: ReadModels }> = async (app, { models }) => {
  const flags = new FlagDefinitionCache(models)

  const definitionsFor = async (request: FastifyRequest, token: string | undefined) => {
    const { user } = principalOf(request)
    const [environment] = token !== undefined && token !== ''
      ? await models.find('environments', { where: { api_token: token }, limit: 1 })
      : await models.find('environments', { where: { organization: user.organization_id }, orderBy: [['id', 'asc']], limit: 1 })
    if (!environment) throw new NotFound('Project not found.')
    checkKeyReachesEnvironment(principalOf(request), environment)
    if (environment.organization !== user.organization_id) throw new PermissionDenied("You don't have access to the project.")
    const { definitions, stamp } = await flags.forEnvironment(environment.id)
    const body = { flags: definitions.flags, group_type_mapping: definitions.group_type_mapping ?? {}, cohorts: definitions.cohorts ?? {} } satisfies JsonObject
    const etag = `"${createHash('sha1').update(`${environment.id}|${stamp}`).digest('hex')}"`
    return { body, etag }
  }

  const typed = app.withTypeProvider<ZodTypeProvider>()
  const options = { config: { scopes: ['feature_flag:read'], projectScoped: true }, schema: { querystring: Query } }

  typed.get('/api/feature_flag/local_evaluation', options, async (request) => (await definitionsFor(request, request.query.token)).body)

  typed.get('/flags/definitions', options, async (request, reply) => {
    const { body, etag } = await definitionsFor(request, request.query.token)
    reply.header('etag', etag)
    if (matches(request.headers['if-none-match'], etag)) return reply.status(304).send()
    return body
  })
}
