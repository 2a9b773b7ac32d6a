import type { FeatureModule } from '../http/feature-module.js'
import { insightAudit } from './audited.js'
import { INSIGHT_EVENT_TYPES } from './events.js'
import { insights } from './projection.js'
import type { QueryRouteDeps } from './query/routes.js'
import type { LiveRouteDeps } from './live/live-routes.js'
import type { InsightDeps } from './service.js'

/** Saved insights (their queries, tiles on dashboards and sharing), and PostHog's query endpoint over the read models. */
export const insightsModule: FeatureModule<InsightDeps & QueryRouteDeps & LiveRouteDeps> = {
  name: 'insights',
  eventTypes: INSIGHT_EVENT_TYPES,
  projectors: [insights],
  audited: [insightAudit],
  routes: async () => {
    const [{ insightRoutes }, { insightSharingRoutes }, { queryRoutes }, { liveRoutes }] = await Promise.all([
      import('./routes.js'), import('./sharing-routes.js'), import('./query/routes.js'), import('./live/live-routes.js'),
    ])
    return { environment: [liveRoutes, insightRoutes, insightSharingRoutes, queryRoutes] }
  },
}
