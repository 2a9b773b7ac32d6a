import type { EventLog } from '../eventlog/port.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'
import { randomToken, randomUuid } from '../kernel/ids.js'
import { allocateId } from '../kernel/sequence.js'
import { organizationDecider, userDecider } from './deciders.js'
import { organizationStream, userStream } from './events.js'

export const MEMBER_LEVEL = 1
export const ADMIN_LEVEL = 8

export const createOrganization = async (log: EventLog, name: string, context: CommandContext): Promise<string> => {
  const organizationId = randomUuid()
  await handleCommand(log, organizationDecider, organizationStream(organizationId), { data: { organizationId, name, at: context.now } }, context)
  return organizationId
}

export interface NewUser {
  readonly organizationId: string
  readonly email: string
  readonly firstName: string
  readonly membershipLevel: number
}

/** Adds a user to an organization at a membership level (1 member, 8 admin, 15 owner); returns the user's uuid. */
export const addUser = async (log: EventLog, user: NewUser, context: CommandContext): Promise<string> => {
  const userUuid = randomUuid()
  const userId = await allocateId(log, 'user', context)
  await handleCommand(log, userDecider, userStream(userUuid), {
    data: {
      userUuid, userId, organizationId: user.organizationId, distinctId: randomToken('', 24), email: user.email,
      firstName: user.firstName, lastName: '', membershipLevel: user.membershipLevel, at: context.now,
    },
  }, context)
  return userUuid
}
