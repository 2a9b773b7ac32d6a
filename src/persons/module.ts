import type { FeatureModule } from '../http/feature-module.js'
import { persons } from './projection.js'
import type { PersonRouteDeps } from './routes.js'

/** Persons and their distinct ids, built from captured events. */
export const personsModule: FeatureModule<PersonRouteDeps> = {
  name: 'persons',
  projectors: [persons],
  routes: async () => {
    const { personRoutes } = await import('./routes.js')
    return { environment: [personRoutes] }
  },
}
