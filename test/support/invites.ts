import type { EventLog } from '../../src/eventlog/port.js'
import { inviteDecider } from '../../src/invites/decider.js'
import { INVITE_DAYS_VALIDITY, inviteStream } from '../../src/invites/events.js'
import { handleCommand } from '../../src/kernel/handle-command.js'
import { newUlid } from '../../src/kernel/ids.js'
import { context } from './world.js'

const DAY_MS = 86_400_000

/** An invite recorded a day longer ago than invites stay valid, so it has expired; with the log position it was written at. */
export const expiredInvite = async (log: EventLog, invite: { organizationId: string; createdBy: string; email: string }) => {
  const at = new Date(Date.now() - (INVITE_DAYS_VALIDITY + 1) * DAY_MS).toISOString()
  const inviteId = newUlid(Date.parse(at))
  const result = await handleCommand(log, inviteDecider, inviteStream(inviteId), {
    type: 'CreateInvite',
    data: {
      inviteId, organizationId: invite.organizationId, email: invite.email, firstName: '', level: 1, message: null,
      createdBy: invite.createdBy, expiresAt: new Date(Date.parse(at) + INVITE_DAYS_VALIDITY * DAY_MS).toISOString(), at,
    },
  }, { ...context(invite.createdBy), now: at })
  return { inviteId, position: result.position! }
}
