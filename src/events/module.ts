import type { FeatureModule } from '../http/feature-module.js'
import type { EventRouteDeps } from './event-routes.js'
import { events } from './projection.js'

/** Every stored analytics event, one document each. */
export const eventsModule: FeatureModule<EventRouteDeps> = {
  name: 'events',
  projectors: [events],
  routes: async () => {
    const { eventRoutes } = await import('./event-routes.js')
    return { environment: [eventRoutes] }
  },
}
