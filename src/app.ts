import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify'
import type { EventLog } from './eventlog/port.js'
import type { ReadStore } from './readstore/port.js'
import type { ProjectionSet } from '../projections/projection-set.js'
import type { ReadModels } from '../projections/read-models.js'
import { accountRoutes } from './accounts/routes.js'
import { activityLogRoutes } from './activity/routes.js'
import { useAuth } from './auth/authenticate.js'
import { useErrorHandling } from './http/errors.js'
import { healthRoutes } from './http/health.js'
import { logRequests } from './http/request-log.js'
import { useZod } from './http/zod.js'
import { registerEnvironmentScoped } from './http/environment-scope.js'
import { environmentRoutes } from './environments/routes.js'
import { subscriptionRoutes } from './subscriptions/routes.js'
import { flagRoutes } from './flags/routes.js'
import { collaboratorRoutes } from './dashboards/collaborator-routes.js'
import { dashboardRoutes } from './dashboards/routes.js'
import { sharedViewRoutes, sharingRoutes } from './dashboards/sharing-routes.js'
import { ingestRoutes } from './ingestion/routes.js'
import { TokenResolver } from './ingestion/environments.js'
import { decideRoutes } from './decide/routes.js'
import { localEvaluationRoutes } from './decide/local-evaluation.js'
import { eventRoutes } from './persons/event-routes.js'
import { groupRoutes } from './persons/group-routes.js'
import { personRoutes } from './persons/routes.js'
import { sessionRoutes } from './persons/session-routes.js'

export type HttpRole = 'api' | 'ingest'

export interface AppDeps {
  readonly log: EventLog
  readonly store: ReadStore
  readonly models: ReadModels
  readonly projections?: ProjectionSet
  /** Which route groups to serve; `/_health` is always served. */
  readonly roles: readonly HttpRole[]
  /** A pino logger; none in tests. */
  readonly logger?: FastifyBaseLogger
}

/** Builds the HTTP app without listening, so tests can `inject` and the CLI can `listen`. */
export const buildApp = async (deps: AppDeps): Promise<FastifyInstance> => {
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    routerOptions: { ignoreTrailingSlash: true },
    bodyLimit: 20 * 1024 * 1024,
    // Requests are logged by our own hook, so that keys in query strings never reach the logs.
    logController: new LogController({ disableRequestLogging: true }),
  })
  logRequests(app)
  useZod(app)
  useErrorHandling(app)
  useAuth(app, deps)
  await app.register(healthRoutes, deps)
  if (deps.roles.includes('api')) {
    await app.register(accountRoutes, deps)
    await app.register(environmentRoutes, deps)
    const scoped = [
      dashboardRoutes, collaboratorRoutes, sharingRoutes, subscriptionRoutes, flagRoutes, personRoutes, groupRoutes, eventRoutes, sessionRoutes,
      activityLogRoutes,
    ]
    for (const plugin of scoped) await registerEnvironmentScoped(app, plugin, deps)
    await app.register(sharedViewRoutes, deps)
    await app.register(localEvaluationRoutes, deps)
  }
  if (deps.roles.includes('ingest')) {
    const tokens = new TokenResolver(deps)
    await app.register(ingestRoutes, { ...deps, tokens })
    await app.register(decideRoutes, { ...deps, tokens })
  }
  return app
}
