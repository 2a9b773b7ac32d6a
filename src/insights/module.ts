import type { FeatureModule } from '../http/feature-module.js'
import { insightAudit } from './audited.js'
import { INSIGHT_EVENT_TYPES } from './events.js'
import { insights } from './projection.js'
import type { InsightDeps } from './service.js'

/** Saved insights: their queries, their tiles on dashboards and their sharing. */
export const insightsModule: FeatureModule<InsightDeps> = {
  name: 'insights',
  eventTypes: INSIGHT_EVENT_TYPES,
  projectors: [insights],
  audited: [insightAudit],
  routes: async () => {
    const [{ insightRoutes }, { insightSharingRoutes }] = await Promise.all([import('./routes.js'), import('./sharing-routes.js')])
    return { environment: [insightRoutes, insightSharingRoutes] }
  },
}
