import { environments, organizations, personalApiKeys, projects, users } from './accounts.js'
import { events } from './events.js'
import { groups } from './groups.js'
import { persons } from './persons.js'
import type { Projector } from './projector.js'
import { sessions } from './sessions.js'

/** Every projector the service runs. */
export const allProjectors: readonly Projector[] = [
  organizations, users, projects, environments, personalApiKeys, persons, groups, sessions, events,
]
