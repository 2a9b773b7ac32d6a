import type { RouteDeps } from './app-deps.js'
import type { FeatureModule } from './http/feature-module.js'
import type { AuditedResource } from './readstore/audited-resource.js'
import type { Projector } from './readstore/projector.js'
import { accountsModule } from './accounts/module.js'
import { activityModule } from './activity/module.js'
import { dashboardsModule } from './dashboards/module.js'
import { decideModule } from './decide/module.js'
import { environmentsModule } from './environments/module.js'
import { eventsModule } from './events/module.js'
import { exportsModule } from './exports/module.js'
import { flagsModule } from './flags/module.js'
import { groupsModule } from './groups/module.js'
import { ingestionModule } from './ingestion/module.js'
import { insightsModule } from './insights/module.js'
import { invitesModule } from './invites/module.js'
import { organizationsModule } from './organizations/module.js'
import { personsModule } from './persons/module.js'
import { remoteConfigModule } from './remote-config/module.js'
import { schedulerModule } from './scheduler/module.js'
import { sessionsModule } from './sessions/module.js'
import { staticModule } from './static/module.js'
import { subscriptionsModule } from './subscriptions/module.js'
import { surveysModule } from './surveys/module.js'

/**
 * Every feature of the service. The projectors, the projection threads' shares, the audited
 * resources and the routes are all built from this list: a new feature is a folder with a
 * `module.ts` and one line here. Projectors start in this order.
 */
export const MODULES: readonly FeatureModule<RouteDeps>[] = [
  accountsModule,
  organizationsModule,
  invitesModule,
  environmentsModule,
  dashboardsModule,
  insightsModule,
  subscriptionsModule,
  exportsModule,
  flagsModule,
  surveysModule,
  schedulerModule,
  personsModule,
  groupsModule,
  sessionsModule,
  eventsModule,
  activityModule,
  ingestionModule,
  decideModule,
  remoteConfigModule,
  staticModule,
]

/** Every projector the service runs. */
export const allProjectors: readonly Projector[] = MODULES.flatMap((module) => module.projectors ?? [])

/** Every resource whose history `hedgelog audit`, the activity log and `?as_of=` read. */
export const auditedResources: readonly AuditedResource[] = MODULES.flatMap((module) => module.audited ?? [])
