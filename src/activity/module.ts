import type { FeatureModule } from '../http/feature-module.js'
import type { ActivityLogDeps } from './routes.js'

/** The environment's activity log, read from the streams of its audited resources. */
export const activityModule: FeatureModule<ActivityLogDeps> = {
  name: 'activity',
  routes: async () => {
    const { activityLogRoutes } = await import('./routes.js')
    return { environment: [activityLogRoutes] }
  },
}
