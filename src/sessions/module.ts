import type { FeatureModule } from '../http/feature-module.js'
import { sessions } from './projection.js'
import type { SessionRouteDeps } from './session-routes.js'

/** Sessions and the values seen in them, built from captured events. */
export const sessionsModule: FeatureModule<SessionRouteDeps> = {
  name: 'sessions',
  projectors: [sessions],
  routes: async () => {
    const { sessionRoutes } = await import('./session-routes.js')
    return { environment: [sessionRoutes] }
  },
}
