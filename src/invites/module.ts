import type { FeatureModule } from '../http/feature-module.js'
import { INVITE_EVENT_TYPES } from './events.js'
import type { OrganizationDeps } from '../organizations/service.js'
import { invites } from './projection.js'

/** Invitations to an organization. */
export const invitesModule: FeatureModule<OrganizationDeps> = {
  name: 'invites',
  eventTypes: INVITE_EVENT_TYPES,
  projectors: [invites],
  routes: async () => {
    const { inviteRoutes } = await import('./routes.js')
    return { api: [inviteRoutes] }
  },
}
