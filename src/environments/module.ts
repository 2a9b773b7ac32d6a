import { environmentStream } from '../accounts/events.js'
import type { FeatureModule } from '../http/feature-module.js'
import { environmentActivity } from './activity.js'
import type { EnvironmentDeps } from './service.js'

/** Environments (PostHog's teams) and projects: their settings, tokens and history. */
export const environmentsModule: FeatureModule<EnvironmentDeps> = {
  name: 'environments',
  audited: [{ kind: 'environment', collection: 'environments', stream: environmentStream, activity: environmentActivity, isEnvironment: true }],
  routes: async () => {
    const { environmentRoutes } = await import('./routes.js')
    return { api: [environmentRoutes] }
  },
}
