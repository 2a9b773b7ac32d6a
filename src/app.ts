import Fastify, { LogController, type FastifyInstance } from 'fastify'
import type { AppDeps, RouteDeps } from './app-deps.js'
export type { AppDeps, HttpRole } from './app-deps.js'
import { auditedResources, MODULES } from './modules.js'
import { registerEnvironmentScoped } from './http/environment-scope.js'
import type { ModuleRoutes } from './http/feature-module.js'
import { deliveryChannels } from './delivery/channels.js'
import { useAuth } from './auth/authenticate.js'
import { KeyRateLimiter, useRateLimits, type RateWindow } from './auth/rate-limit.js'
import { AUTH_FAILURE_LIMITS, throttleFailedAuthentication } from './auth/failed-auth.js'
import { addressKey, trustedClientIp } from './http/client-ip.js'
import { capConnectionsPerAddress, CONNECTIONS_PER_ADDRESS } from './http/connection-cap.js'
import { answerFrameworkError, useErrorHandling } from './http/errors.js'
import { healthRoutes } from './http/health.js'
import { awaitCaughtUpForReads } from './http/caught-up.js'
import { awaitStores } from './http/store-gate.js'
import { StoreFaults } from './http/store-faults.js'
import { boundJsonDepth } from './http/json-depth.js'
import { answerOversizedBodies } from './http/oversized-bodies.js'
import { logRequests } from './http/request-log.js'
import { useZod } from './http/zod.js'
import { useEmptyJsonBodies } from './http/drf.js'
import { lastValues } from './http/query-string.js'
import { recordRoutes } from './http/route-table.js'
import { useCors } from './ingestion/cors.js'
import { TokenResolver } from './ingestion/environments.js'
import { AppendWatch, useAdmission } from './http/admission.js'
import { queriedInsightResults } from './insights/query/insight-results.js'
import { LiveInsights } from './insights/live/live-insights.js'
import { liveInsightResults } from './insights/live/live-results.js'
import type { InsightResults } from './insights/results.js'

/** Connections one process keeps open at most; more are refused until some close. */
export const MAX_CONNECTIONS = 4096

/** Builds the HTTP app without listening, so tests can `inject` and the CLI can `listen`. */
/**
 * How the app's insights get their results: live where the projections run in this process and
 * the API is served (the live queries are fed from their read models), else computed by the
 * query service.
 */
const insightResultsOf = (app: FastifyInstance, deps: AppDeps): { insightResults: InsightResults; liveInsights: LiveInsights | null } => {
  const computed = deps.insightResults ?? queriedInsightResults(deps.models)
  if (deps.insightResults || !deps.projections || !deps.roles.includes('api') || deps.keepInsightsLive === false) return { insightResults: computed, liveInsights: null }
  const live = new LiveInsights({
    log: deps.log, models: deps.models, projections: deps.projections,
    ...(deps.liveInsightsMaxEntries !== undefined ? { maxEntries: deps.liveInsightsMaxEntries } : {}),
  }, Date.now, deps.liveInsightsRescanMs)
  app.addHook('onClose', async () => { await live.stop() })
  void live.start()
  return { insightResults: liveInsightResults(live, computed), liveInsights: live }
}

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
  if (deps.storeWaits) awaitStores(app, deps.storeWaits)
  const authFailureLimits = deps.authFailureLimits ?? AUTH_FAILURE_LIMITS
  if (authFailureLimits.length > 0) {
    throttleFailedAuthentication(app, authFailureLimits, (request) =>
      addressKey(trustedClientIp(request.headers['x-forwarded-for'], request.socket.remoteAddress, trustedProxies)))
  }
  useAuth(app, deps)
  if (deps.rateLimits && deps.rateLimits.length > 0) useRateLimits(app, new KeyRateLimiter(deps.rateLimits))
  await app.register(healthRoutes, { ...deps, faults, ...(deps.storeWaits ? { waits: deps.storeWaits } : {}), ...(deps.healthProbeTimeoutMs ? { probeTimeoutMs: deps.healthProbeTimeoutMs } : {}) })
  // Routes append through `log`, whose appends admission control times.
  const appends = new AppendWatch()
  const log = appends.watched(deps.log)
  if (deps.admission) await useAdmission(app, { log: deps.log, appends, ...(deps.projections ? { projections: deps.projections } : {}) }, deps.admission)
  if (deps.projections) awaitCaughtUpForReads(app, deps.projections)
  const delivery = deps.delivery ?? {
    channels: deliveryChannels({ mailer: deps.mailer, allowPrivate: false, timeoutMs: 10_000, log: (fields, message) => app.log.warn(fields, message) }),
    publicUrl: 'http://localhost:8000',
  }
  const routeDeps: RouteDeps = {
    ...deps, log, tokens: new TokenResolver({ ...deps, log }), delivery, audited: auditedResources, ...insightResultsOf(app, deps),
  }
  const loaded: ModuleRoutes<RouteDeps>[] = await Promise.all(MODULES.map((module) => module.routes?.() ?? {}))
  const routes = (role: keyof ModuleRoutes<RouteDeps>) => loaded.flatMap((group) => group[role] ?? [])
  if (deps.roles.includes('api')) {
    for (const plugin of routes('api')) await app.register(plugin, routeDeps)
    for (const plugin of routes('environment')) await registerEnvironmentScoped(app, plugin, routeDeps)
  }
  if (deps.roles.includes('ingest')) {
    for (const plugin of routes('ingest')) await app.register(plugin, routeDeps)
  }
  return app
}
