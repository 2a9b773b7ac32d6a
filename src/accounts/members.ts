import type { EventLog } from '../eventlog/port.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { randomUuid } from '../kernel/ids.js'
import { allocateId } from '../kernel/sequence.js'
import { organizationDecider } from './deciders.js'
import { organizationStream } from './events.js'
import { createUser } from './user-accounts.js'

export { ADMIN_LEVEL, MEMBER_LEVEL, OWNER_LEVEL } from '../organizations/levels.js'

/** An organization without members or projects (a bare stream event), as tests need for strangers. */
export const createOrganization = async (log: EventLog, name: string, context: CommandContext): Promise<string> => {
  const organizationId = randomUuid()
  await handleCommand(log, organizationDecider, organizationStream(organizationId), {
    type: 'CreateOrganization', data: { organizationId, name, at: context.now },
  }, context)
  return organizationId
}

export interface MemberToAdd {
  readonly organizationId: string
  readonly email: string
  readonly firstName: string
  readonly membershipLevel: number
}

/** Adds a user to an organization at a membership level (1 member, 8 admin, 15 owner); returns the user's uuid. */
export const addUser = async (log: EventLog, user: MemberToAdd, context: CommandContext): Promise<string> => {
  const userUuid = randomUuid()
  const userId = await allocateId(log, 'user', context)
  await createUser(log, { ...user, userUuid, userId }, context)
  return userUuid
}
