import type { FeatureModule } from '../http/feature-module.js'
import type { GroupRouteDeps } from './group-routes.js'
import { groups } from './projection.js'

/** Groups and group types, built from captured events. */
export const groupsModule: FeatureModule<GroupRouteDeps> = {
  name: 'groups',
  projectors: [groups],
  routes: async () => {
    const { groupRoutes } = await import('./group-routes.js')
    return { environment: [groupRoutes] }
  },
}
