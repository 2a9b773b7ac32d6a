import type { FeatureModule } from '../http/feature-module.js'
import type { RemoteConfigDeps } from './routes.js'

/** The SDKs' remote configuration. */
export const remoteConfigModule: FeatureModule<RemoteConfigDeps> = {
  name: 'remote-config',
  routes: async () => {
    const { remoteConfigRoutes } = await import('./routes.js')
    return { ingest: [remoteConfigRoutes] }
  },
}
