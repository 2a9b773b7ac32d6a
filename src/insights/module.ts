import type { FeatureModule } from '../http/feature-module.js'
import type { QueryRouteDeps } from './query/routes.js'

/** Analytics: PostHog's query endpoint, answered from the read models of captured events. */
export const insightsModule: FeatureModule<QueryRouteDeps> = {
  name: 'insights',
  routes: async () => ({ environment: [(await import('./query/routes.js')).queryRoutes] }),
}
