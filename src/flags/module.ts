import type { FeatureModule } from '../http/feature-module.js'
import { flagActivity } from './activity.js'
import { FEATURE_FLAG_EVENT_TYPES, FLAG_KEY_EVENT_TYPES, flagStream } from './events.js'
import { featureFlags } from './projection.js'
import type { FlagDeps } from './service.js'

/** Feature flags as the management API sees them. */
export const flagsModule: FeatureModule<FlagDeps> = {
  name: 'flags',
  eventTypes: [...FEATURE_FLAG_EVENT_TYPES, ...FLAG_KEY_EVENT_TYPES],
  projectors: [featureFlags],
  audited: [{ kind: 'flag', collection: 'feature_flags', stream: flagStream, activity: flagActivity }],
  routes: async () => {
    const [{ remoteConfigRoutes }, { flagRoutes }] = await Promise.all([import('./remote-config-routes.js'), import('./routes.js')])
    return { environment: [flagRoutes, remoteConfigRoutes] }
  },
}
