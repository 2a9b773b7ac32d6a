import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { EventLog } from './eventlog/port.js'
import type { ReadStore } from './readstore/port.js'
import type { Mailer } from './mail/mailer.js'
import type { Channels } from './delivery/targets.js'
import { deliveryChannels } from './delivery/channels.js'
import type { Projections } from './readstore/projections.js'
import type { ReadModels } from './readstore/read-models.js'
import { accountRoutes } from './accounts/routes.js'
import { keyRoutes } from './accounts/key-routes.js'
import { organizationRoutes } from './organizations/routes.js'
import { memberRoutes } from './organizations/member-routes.js'
import { inviteRoutes } from './invites/routes.js'
import { activityLogRoutes } from './activity/routes.js'
import { useAuth } from './auth/authenticate.js'
import { KeyRateLimiter, useRateLimits, type RateWindow } from './auth/rate-limit.js'
import { AUTH_FAILURE_LIMITS, throttleFailedAuthentication } from './auth/failed-auth.js'
import { addressKey, trustedClientIp } from './http/client-ip.js'
import { capConnectionsPerAddress, CONNECTIONS_PER_ADDRESS } from './http/connection-cap.js'
import { answerFrameworkError, useErrorHandling } from './http/errors.js'
import { healthRoutes } from './http/health.js'
import { awaitCaughtUpForReads } from './http/caught-up.js'
import { StoreFaults } from './http/store-faults.js'
import { boundJsonDepth } from './http/json-depth.js'
import { answerOversizedBodies } from './http/oversized-bodies.js'
import { logRequests } from './http/request-log.js'
import { useZod } from './http/zod.js'
import { useEmptyJsonBodies } from './http/drf.js'
import { lastValues } from './http/query-string.js'
import { recordRoutes } from './http/route-table.js'
import { useCors } from './ingestion/cors.js'
import { registerEnvironmentScoped } from './http/environment-scope.js'
import { environmentRoutes } from './environments/routes.js'
import { subscriptionRoutes } from './subscriptions/routes.js'
import { flagRoutes } from './flags/routes.js'
import { remoteConfigRoutes as flagRemoteConfigRoutes } from './flags/remote-config-routes.js'
import { surveyRoutes } from './surveys/routes.js'
import { publicSurveyRoutes } from './surveys/public-routes.js'
import { remoteConfigRoutes } from './remote-config/routes.js'
import { staticRoutes } from './static/routes.js'
import { recordingRoutes } from './ingestion/recordings.js'
import { collaboratorRoutes } from './dashboards/collaborator-routes.js'
import { dashboardRoutes } from './dashboards/routes.js'
import { sharedViewRoutes, sharingRoutes } from './dashboards/sharing-routes.js'
import { ingestRoutes } from './ingestion/routes.js'
import { TokenResolver } from './ingestion/environments.js'
import { decideRoutes } from './decide/routes.js'
import { localEvaluationRoutes } from './decide/local-evaluation.js'
import { eventRoutes } from './events/event-routes.js'
import { groupRoutes } from './groups/group-routes.js'
import { personRoutes } from './persons/routes.js'
import { sessionRoutes } from './sessions/session-routes.js'

export type HttpRole = 'api' | 'ingest'

export interface AppDeps {
  readonly log: EventLog
  readonly store: ReadStore
  readonly models: ReadModels
  readonly projections?: Projections
  /** Which route groups to serve; `/_health` is always served. */
  readonly roles: readonly HttpRole[]
  /** A pino logger; none in tests. */
  readonly logger?: FastifyBaseLogger
  /** Requests allowed per personal API key; none (no limit) when not given. */
  readonly rateLimits?: readonly RateWindow[]
  /** Sends invitation e-mails; none when SMTP is not configured. */
  readonly mailer?: Mailer
  /** How subscription deliveries leave the process, and the base of their links; by default e-mail through `mailer`, public addresses only. */
  readonly delivery?: { readonly channels: Channels; readonly publicUrl: string }
  /** How long a client may take to send a whole request, headers and body. Default 30 s. */
  readonly requestTimeoutMs?: number
  /** How long a client may take to send the request line and headers. Default 10 s, or the request timeout if shorter. */
  readonly headersTimeoutMs?: number
  /** Connections kept open at most. Default MAX_CONNECTIONS. */
  readonly maxConnections?: number
  /** Connections one client address may hold open; 0 for no cap per address. Default CONNECTIONS_PER_ADDRESS. */
  readonly connectionsPerAddress?: number
  /** Failed authentications allowed per client address; none (no limit) when empty. Default AUTH_FAILURE_LIMITS. */
  readonly authFailureLimits?: readonly RateWindow[]
  /** Addresses of the proxies in front, whose `X-Forwarded-For` names the client, and which are not held to the cap per address. */
  readonly trustedProxies?: readonly string[]
}

/** Connections one process keeps open at most; more are refused until some close. */
export const MAX_CONNECTIONS = 4096

/** Builds the HTTP app without listening, so tests can `inject` and the CLI can `listen`. */
export const buildApp = async (deps: AppDeps): Promise<FastifyInstance> => {
  const requestTimeout = deps.requestTimeoutMs ?? 30_000
  const headersTimeout = Math.min(deps.headersTimeoutMs ?? 10_000, requestTimeout)
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    // Long path segments (tokens, flag keys up to 400 characters) reach the routes, which refuse them in PostHog's shape.
    routerOptions: { ignoreTrailingSlash: true, querystringParser: lastValues, maxParamLength: 1000 },
    bodyLimit: 20 * 1024 * 1024,
    // A slow or stalled client cannot hold a connection: the whole request must arrive in time
    // (checked every second), its headers within ten seconds.
    requestTimeout,
    http: { connectionsCheckingInterval: Math.min(1000, headersTimeout), headersTimeout },
    // Requests are logged by our own hook, so that keys in query strings never reach the logs.
    logController: new LogController({ disableRequestLogging: true }),
    frameworkErrors: answerFrameworkError,
  })
  app.server.maxConnections = deps.maxConnections ?? MAX_CONNECTIONS
  const trustedProxies = new Set(deps.trustedProxies ?? [])
  const perAddress = deps.connectionsPerAddress ?? CONNECTIONS_PER_ADDRESS
  if (perAddress > 0) capConnectionsPerAddress(app.server, perAddress, trustedProxies)
  recordRoutes(app)
  logRequests(app)
  useZod(app)
  useEmptyJsonBodies(app)
  answerOversizedBodies(app)
  boundJsonDepth(app)
  useErrorHandling(app)
  const faults = new StoreFaults()
  app.addHook('onError', (_request, _reply, error, done) => { faults.record(error); done() })
  app.addHook('onResponse', (request, reply, done) => {
    if (reply.statusCode < 300 && request.url.startsWith('/api/')) faults.succeeded()
    done()
  })
  useCors(app)
  const authFailureLimits = deps.authFailureLimits ?? AUTH_FAILURE_LIMITS
  if (authFailureLimits.length > 0) {
    throttleFailedAuthentication(app, authFailureLimits, (request) =>
      addressKey(trustedClientIp(request.headers['x-forwarded-for'], request.socket.remoteAddress, trustedProxies)))
  }
  useAuth(app, deps)
  if (deps.rateLimits && deps.rateLimits.length > 0) useRateLimits(app, new KeyRateLimiter(deps.rateLimits))
  await app.register(healthRoutes, { ...deps, faults })
  if (deps.projections) awaitCaughtUpForReads(app, deps.projections)
  if (deps.roles.includes('api')) {
    await app.register(accountRoutes, deps)
    for (const plugin of [keyRoutes, organizationRoutes, memberRoutes, inviteRoutes]) await app.register(plugin, deps)
    await app.register(environmentRoutes, deps)
    const scoped = [
      dashboardRoutes, collaboratorRoutes, sharingRoutes, subscriptionRoutes, flagRoutes, flagRemoteConfigRoutes, surveyRoutes,
      personRoutes, groupRoutes, eventRoutes, sessionRoutes, activityLogRoutes,
    ]
    const delivery = deps.delivery ?? {
      channels: deliveryChannels({ mailer: deps.mailer, allowPrivate: false, timeoutMs: 10_000, log: (fields, message) => app.log.warn(fields, message) }),
      publicUrl: 'http://localhost:8000',
    }
    for (const plugin of scoped) await registerEnvironmentScoped(app, plugin, { ...deps, delivery })
    await app.register(sharedViewRoutes, deps)
    await app.register(localEvaluationRoutes, deps)
  }
  if (deps.roles.includes('ingest')) {
    const tokens = new TokenResolver(deps)
    await app.register(ingestRoutes, { ...deps, tokens })
    await app.register(decideRoutes, { ...deps, tokens })
    await app.register(remoteConfigRoutes, { ...deps, tokens })
    await app.register(publicSurveyRoutes, { ...deps, tokens })
    await app.register(recordingRoutes)
    await app.register(staticRoutes)
  }
  return app
}
