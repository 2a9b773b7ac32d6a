import type { FastifyPluginAsync } from 'fastify'
import { z } from 'zod'
import type { EventLog } from '../eventlog/port.js'
import type { DecideSettings } from '../decide/decide-config.js'
import type { ZodTypeProvider } from '../http/zod.js'
import { answerPreflight } from '../ingestion/cors.js'
import { TokenResolver } from '../ingestion/environments.js'
import { DomainError, NotFound } from '../kernel/errors.js'
import { isRunning } from '../surveys/state.js'
import type { ReadModels } from '../readstore/read-models.js'
import { remoteConfig, remoteConfigScript, type RemoteConfig } from './config.js'

export interface RemoteConfigDeps {
  readonly log: EventLog
  readonly models: ReadModels
  readonly tokens?: TokenResolver
}

/** PostHog's token check for this endpoint: up to 200 letters, digits, `_` and `-`. */
const Params = z.object({ token: z.string() })
const VALID_TOKEN = /^[A-Za-z0-9_-]{1,200}$/

/** As PostHog caches it: five minutes in a browser or CDN, varying by the page asking. */
const CACHE_HEADERS = { 'cache-control': 'public, max-age=300', vary: 'Origin, Referer' }

/**
 * `GET /array/{token}/config` (JSON) and `/array/{token}/config.js` (the script posthog-js
 * loads first): what the SDK should do for this environment. A malformed token is 400, an
 * unknown one 404.
 */
export const remoteConfigRoutes: FastifyPluginAsync<RemoteConfigDeps> = async (plain, deps) => {
  const app = plain.withTypeProvider<ZodTypeProvider>()
  const { models } = deps
  const tokens = deps.tokens ?? new TokenResolver(deps)

  const configFor = async (token: string): Promise<RemoteConfig> => {
    if (!VALID_TOKEN.test(token)) throw new DomainError(400, 'validation_error', 'invalid_token', 'Invalid token')
    const environmentId = await tokens.resolve(token)
    const environment = environmentId === null ? null : await models.get('environments', String(environmentId))
    if (!environment) throw new NotFound()
    const [flags, surveys] = await Promise.all([
      models.find('feature_flags', { where: { environment_id: environment.id, deleted: false } }),
      models.find('surveys', { where: { environment_id: environment.id } }),
    ])
    return remoteConfig(token, (environment['settings'] ?? {}) as DecideSettings, {
      hasFeatureFlags: flags.some((flag) => flag.active),
      hasRunningSurveys: surveys.some((survey) => isRunning(survey) && survey.type !== 'api'),
    })
  }

  app.get('/array/:token/config', { schema: { params: Params } }, async (request, reply) =>
    reply.headers(CACHE_HEADERS).send(await configFor(request.params.token)))

  app.get('/array/:token/config.js', { schema: { params: Params } }, async (request, reply) => {
    const config = await configFor(request.params.token)
    return reply.headers({ ...CACHE_HEADERS, 'content-type': 'application/javascript; charset=utf-8' }).send(remoteConfigScript(request.params.token, config))
  })

  for (const url of ['/array/:token/config', '/array/:token/config.js']) app.options(url, answerPreflight)
}
