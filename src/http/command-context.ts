import type { FastifyRequest } from 'fastify'
import { principalOf } from '../auth/authenticate.js'
import type { CommandContext } from '../kernel/handle-command.js'
import { newEventId } from '../kernel/ids.js'

/** The acting user (by uuid) and the time, read once at the edge of a management request. */
export const commandContext = (request: FastifyRequest): CommandContext => ({
  actor: principalOf(request).user.uuid,
  now: new Date().toISOString(),
  correlationId: newEventId(),
})

/** The caller as a dashboard or flag rule sees them: who, and their organization membership level. */
export const actorOf = (request: FastifyRequest): { uuid: string; level: number } => {
  const { user } = principalOf(request)
  return { uuid: user.uuid, level: Number(user['membership_level'] ?? 1) }
}
