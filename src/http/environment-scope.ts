import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { NotFound, PermissionDenied } from '../kernel/errors.js'
import type { Environment } from '../readstore/environment.js'
import type { ReadModels } from '../readstore/read-models.js'
import { principalOf } from '../auth/authenticate.js'
import { checkKeyReachesEnvironment } from '../auth/key-reach.js'

/** PostHog serves environment routes under both prefixes; the `/api/projects/` form is the older alias. */
export const ENVIRONMENT_PREFIXES = ['/api/environments/:project_id', '/api/projects/:project_id'] as const

/** Registers a plugin once under each environment prefix. */
export const registerEnvironmentScoped = async <Options extends object>(
  app: FastifyInstance, plugin: FastifyPluginAsync<Options>, options: Options,
): Promise<void> => {
  for (const prefix of ENVIRONMENT_PREFIXES) await app.register(plugin, { ...options, prefix })
}

/** The route's `project_id` parameter; '' when it has none. */
const projectIdOf = (params: unknown): string => {
  const id = params !== null && typeof params === 'object' ? (params as { project_id?: unknown }).project_id : undefined
  return typeof id === 'string' ? id : ''
}

/**
 * The environment a route's `project_id` names, for the calling user: `@current` is the user's
 * first environment; a non-integer or unknown id is 404; an environment of another organization 403.
 */
export const environmentOf = async (request: FastifyRequest, models: ReadModels): Promise<Environment> => {
  const principal = principalOf(request)
  const { user } = principal
  const raw = projectIdOf(request.params)
  if (raw === '@current') {
    const [first] = await models.find('environments', { where: { organization: user.organization_id }, orderBy: [['id', 'asc']], limit: 1 })
    if (!first) throw new NotFound('Project not found.')
    checkKeyReachesEnvironment(principal, first)
    return first
  }
  if (!/^\d+$/.test(raw)) throw new NotFound('Project not found.')
  const environment = await models.get('environments', String(Number(raw)))
  if (!environment) throw new NotFound('Project not found.')
  checkKeyReachesEnvironment(principal, environment)
  if (environment.organization !== user.organization_id) throw new PermissionDenied("You don't have access to the project.")
  return environment
}

/**
 * A method the route does not allow: 405, but only once the caller has been found to reach the
 * environment, since PostHog checks permissions before it looks for a handler (another
 * organization's key gets its 403). `explained` answers with DRF's body rather than a bare 405.
 */
export const methodNotAllowed = (models: ReadModels, explained = false) => async (request: FastifyRequest, reply: FastifyReply) => {
  await environmentOf(request, models)
  if (!explained) return reply.status(405).send()
  return reply.status(405).send({ type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${request.method}" not allowed.`, attr: null })
}
