import type { EventLog } from '../eventlog/port.js'
import { issueApiKey, type IssuedKey } from '../accounts/commands.js'
import { createUser, emailOwner, readUser } from '../accounts/user-accounts.js'
import { ValidationFailed } from '../kernel/errors.js'
import { handleCommand, readAggregate, type CommandContext } from '../kernel/handle-command.js'
import { randomUuid } from '../kernel/ids.js'
import { allocateId } from '../kernel/sequence.js'
import { InviteInvalid, inviteDecider } from './decider.js'
import { inviteStream, type InviteEvent } from './events.js'

export interface AcceptedInvite {
  readonly user_uuid: string
  readonly organization_id: string
  readonly email: string
  readonly level: number
  readonly key: IssuedKey
}

/**
 * Turns an invite into a user of its organization at the invited level, with a first personal
 * key that has every scope. The invite is marked used first, naming the new user, so a run cut
 * short is completed by running it again; a used, deleted or expired invite is refused.
 */
export const acceptInvite = async (log: EventLog, inviteId: string, firstName: string, context: CommandContext): Promise<AcceptedInvite> => {
  const { events } = await readAggregate<InviteEvent>(log, inviteStream(inviteId))
  const state = events.reduce(inviteDecider.evolve, inviteDecider.initialState())
  if (state.status === 'missing' || state.status === 'deleted') throw new InviteInvalid()
  let userUuid = randomUuid()
  if (state.status === 'accepted') {
    if (await readUser(log, state.userUuid)) throw new InviteInvalid()
    userUuid = state.userUuid
  }
  const { invite } = state
  const owner = await emailOwner(log, invite.email)
  if (owner !== null && owner !== userUuid) throw new ValidationFailed('A user with this email address already exists.', 'email')
  await handleCommand(log, inviteDecider, inviteStream(inviteId), { type: 'AcceptInvite', data: { inviteId, userUuid, at: context.now } }, context)
  const userId = await allocateId(log, 'user', context)
  await createUser(log, {
    userUuid, userId, organizationId: invite.organizationId, email: invite.email, firstName: firstName || invite.firstName, membershipLevel: invite.level,
  }, context)
  const key = await issueApiKey(log, { userUuid, scopes: ['*'], label: 'hedgelog invites accept' }, context)
  return { user_uuid: userUuid, organization_id: invite.organizationId, email: invite.email, level: invite.level, key }
}
