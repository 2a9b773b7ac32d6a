import type { FeatureModule } from '../http/feature-module.js'
import type { OrganizationDeps } from './service.js'

/** Organizations and their members. */
export const organizationsModule: FeatureModule<OrganizationDeps> = {
  name: 'organizations',
  routes: async () => {
    const [{ memberRoutes }, { organizationRoutes }] = await Promise.all([import('./member-routes.js'), import('./routes.js')])
    return { api: [organizationRoutes, memberRoutes] }
  },
}
