import type { EventLog } from '../eventlog/port.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { randomToken, randomUuid } from '../kernel/ids.js'
import { environmentDecider } from '../environments/decider.js'
import { OWNER_LEVEL } from '../organizations/levels.js'
import { organizationDecider } from '../organizations/decider.js'
import { projectDecider } from './deciders.js'
import { environmentStream, organizationStream, projectStream } from './events.js'
import { createUser } from './user-accounts.js'

/** The ids and names of an organization with its owner, first project and environment, chosen before any is created. */
export interface OrganizationSeed {
  readonly organizationId: string
  readonly organizationName: string
  readonly userUuid: string
  readonly userId: number
  readonly email: string
  readonly firstName: string
  readonly projectId: number
  readonly environmentId: number
}

export interface OrganizationSetUp {
  readonly organization_id: string
  readonly user_uuid: string
  readonly project_id: number
  readonly environment_id: number
  readonly project_api_key: string
}

/**
 * Creates each part that is missing: the organization, its owner, a project and its first
 * environment. Every step records nothing when its part exists, so a run cut short is
 * completed by running it again with the same seed.
 */
export const setUpOrganization = async (log: EventLog, seed: OrganizationSeed, context: CommandContext): Promise<OrganizationSetUp> => {
  const { organizationId, userUuid, projectId, environmentId } = seed
  const at = context.now
  await handleCommand(log, organizationDecider, organizationStream(organizationId), {
    type: 'CreateOrganization', data: { organizationId, name: seed.organizationName, at },
  }, context)
  await createUser(log, {
    userUuid, userId: seed.userId, organizationId, email: seed.email, firstName: seed.firstName, membershipLevel: OWNER_LEVEL,
  }, context)
  await handleCommand(log, projectDecider, projectStream(projectId), { data: { projectId, organizationId, name: 'Default project', createdBy: userUuid, at } }, context)
  const environment = await handleCommand(log, environmentDecider, environmentStream(environmentId), {
    type: 'CreateEnvironment',
    data: {
      environmentId, uuid: randomUuid(), projectId, organizationId, name: 'Default project',
      apiToken: randomToken('phc_'), timezone: 'UTC', createdBy: userUuid, at,
    },
  }, context)
  if (environment.state.status !== 'created') throw new Error('environment was not created')
  return {
    organization_id: organizationId, user_uuid: userUuid, project_id: projectId, environment_id: environmentId,
    project_api_key: environment.state.apiToken,
  }
}
