import { environments, organizations, personalApiKeys, projects, users } from './accounts.js'
import { dashboards } from './dashboards.js'
import { events } from './events.js'
import { featureFlags } from './feature-flags.js'
import { groups } from './groups.js'
import { invites } from './invites.js'
import { persons } from './persons.js'
import type { Projector } from './projector.js'
import { sessions } from './sessions.js'
import { subscriptionDeliveries } from './subscription-deliveries.js'
import { subscriptions } from './subscriptions.js'
import { surveys } from './surveys.js'
import { unfinishedCommands } from './unfinished-commands.js'

/** Every projector the service runs. */
export const allProjectors: readonly Projector[] = [
  organizations, users, projects, environments, personalApiKeys, invites, dashboards, subscriptions, subscriptionDeliveries, featureFlags, surveys, unfinishedCommands,
  persons, groups, sessions, events,
]
