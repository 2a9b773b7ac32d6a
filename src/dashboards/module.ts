import type { FeatureModule } from '../http/feature-module.js'
import { dashboardActivity } from './activity.js'
import { DASHBOARD_EVENT_TYPES, dashboardStream } from './events.js'
import { dashboards } from './projection.js'
import type { DashboardRouteDeps } from './service.js'

/** Dashboards, their tiles, collaborators and sharing. */
export const dashboardsModule: FeatureModule<DashboardRouteDeps> = {
  name: 'dashboards',
  eventTypes: DASHBOARD_EVENT_TYPES,
  projectors: [dashboards],
  audited: [{ kind: 'dashboard', collection: 'dashboards', stream: dashboardStream, activity: dashboardActivity }],
  routes: async () => {
    const [{ dashboardRoutes }, { collaboratorRoutes }, { sharedViewRoutes, sharingRoutes }] = await Promise.all([
      import('./routes.js'), import('./collaborator-routes.js'), import('./sharing-routes.js'),
    ])
    return { environment: [dashboardRoutes, collaboratorRoutes, sharingRoutes], api: [sharedViewRoutes] }
  },
}
