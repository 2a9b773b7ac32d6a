import { environments, organizations, personalApiKeys, projects, users } from './accounts.js'
import { dashboards } from './dashboards.js'
import type { Projector } from './projector.js'

/** Every projector the service runs. */
export const allProjectors: readonly Projector[] = [organizations, users, projects, environments, personalApiKeys, dashboards]
