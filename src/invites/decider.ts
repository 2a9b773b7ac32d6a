import { NotFound, ValidationFailed, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import type { InviteCreated, InviteEvent } from './events.js'

export type Invite =
  | { status: 'missing' }
  | { status: 'pending'; invite: InviteCreated['data'] }
  | { status: 'accepted'; invite: InviteCreated['data']; userUuid: string }
  | { status: 'deleted' }

export type InviteCommand =
  | { type: 'CreateInvite'; data: InviteCreated['data'] }
  | { type: 'DeleteInvite'; data: { inviteId: string; at: string } }
  | { type: 'AcceptInvite'; data: { inviteId: string; userUuid: string; at: string } }

export class InviteInvalid extends ValidationFailed {
  constructor() {
    super('The provided invite ID is not valid.', null)
  }
}

export const isExpired = (invite: InviteCreated['data'], now: string): boolean => Date.parse(now) >= Date.parse(invite.expiresAt)

/**
 * Accepting twice with the same new user records nothing, so an accept cut short between the
 * invite and the user can be completed; any other use of a used, deleted or expired invite is refused.
 */
const accept = (state: Invite, data: Extract<InviteCommand, { type: 'AcceptInvite' }>['data']): InviteEvent[] => {
  if (state.status === 'accepted' && state.userUuid === data.userUuid) return []
  if (state.status !== 'pending') throw new InviteInvalid()
  if (isExpired(state.invite, data.at)) throw new ValidationFailed('This invite has expired. Please ask your admin for a new one.', null, 'expired')
  return [{ type: 'InviteAccepted', data: { inviteId: data.inviteId, organizationId: state.invite.organizationId, userUuid: data.userUuid, at: data.at } }]
}

export const inviteDecider: Decider<Invite, InviteCommand, InviteEvent> = {
  initialState: () => ({ status: 'missing' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'InviteCreated': return { status: 'pending', invite: event.data }
      case 'InviteDeleted': return { status: 'deleted' }
      case 'InviteAccepted': return state.status === 'pending' ? { status: 'accepted', invite: state.invite, userUuid: event.data.userUuid } : state
      default: return assertNever(event)
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateInvite': return state.status === 'missing' ? [{ type: 'InviteCreated', data: command.data }] : []
      case 'DeleteInvite':
        if (state.status !== 'pending') throw new NotFound()
        return [{ type: 'InviteDeleted', data: { inviteId: command.data.inviteId, organizationId: state.invite.organizationId, at: command.data.at } }]
      case 'AcceptInvite': return accept(state, command.data)
      default: return assertNever(command)
    }
  },
}
