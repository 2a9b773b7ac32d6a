import { eventTypes } from '../kernel/event-types.js'

/** Invitations to join an organization; each lives on its own stream. */
export type InviteCreated = {
  type: 'InviteCreated'
  data: {
    inviteId: string; organizationId: string; email: string; firstName: string; level: number; message: string | null
    createdBy: string; expiresAt: string; at: string
    /** The invite e-mail was to be sent (a mailer configured and `send_email` not false); absent in invites recorded before it was kept. */
    emailingAttemptMade?: boolean
  }
}
export type InviteDeleted = { type: 'InviteDeleted'; data: { inviteId: string; organizationId: string; at: string } }
/** The invitee became a user of the organization; the invite is used up. */
export type InviteAccepted = { type: 'InviteAccepted'; data: { inviteId: string; organizationId: string; userUuid: string; at: string } }

export type InviteEvent = InviteCreated | InviteDeleted | InviteAccepted

export const inviteStream = (id: string) => `invite-${id}`

/** PostHog's invites are good for three days. */
export const INVITE_DAYS_VALIDITY = 3

export const INVITE_EVENT_TYPES = eventTypes<InviteEvent['type']>({ InviteCreated: true, InviteDeleted: true, InviteAccepted: true })
