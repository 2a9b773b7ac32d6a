import type { FeatureModule } from '../http/feature-module.js'
import { ACCOUNT_EVENT_TYPES } from './events.js'
import { USER_EMAIL_CLAIMED } from './user-accounts.js'
import type { KeyRouteDeps } from './key-routes.js'
import { environments, organizations, personalApiKeys, projects, users } from './projections.js'
import type { AccountRouteDeps } from './routes.js'

/** Users, organizations, projects, environments and personal API keys as read models; the current user's routes and keys. */
export const accountsModule: FeatureModule<AccountRouteDeps & KeyRouteDeps> = {
  name: 'accounts',
  eventTypes: [...ACCOUNT_EVENT_TYPES, USER_EMAIL_CLAIMED],
  projectors: [organizations, users, projects, environments, personalApiKeys],
  routes: async () => {
    const [{ keyRoutes }, { accountRoutes }] = await Promise.all([import('./key-routes.js'), import('./routes.js')])
    return { api: [accountRoutes, keyRoutes] }
  },
}
