import type { FastifyRequest } from 'fastify'
import { principalOf } from '../auth/authenticate.js'
import type { CommandContext } from '../kernel/handle-command.js'
import { keyedCommandId } from '../kernel/command-ids.js'
import { ValidationFailed } from '../kernel/errors.js'
import { newEventId } from '../kernel/ids.js'

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/

/**
 * The command a client names with `Idempotency-Key`: the same key from the same user on the same
 * method and path is the same command, so a retry writes nothing new and answers the first result.
 */
const keyedCommand = (request: FastifyRequest, user: string): string | undefined => {
  const header = request.headers['idempotency-key']
  if (header === undefined) return undefined
  if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) {
    throw new ValidationFailed('Idempotency-Key must be 1 to 255 visible ASCII characters.', 'Idempotency-Key')
  }
  return keyedCommandId(user, `${request.method} ${request.url.split('?')[0]}`, header)
}

/** The acting user (by uuid) and the time, read once at the edge of a management request. */
export const commandContext = (request: FastifyRequest): CommandContext => {
  const actor = principalOf(request).user.uuid
  const commandId = keyedCommand(request, actor)
  return { actor, now: new Date().toISOString(), correlationId: newEventId(), ...(commandId ? { commandId } : {}) }
}

/** The caller as a dashboard or flag rule sees them: who, and their organization membership level. */
export const actorOf = (request: FastifyRequest): { uuid: string; level: number } => {
  const { user } = principalOf(request)
  return { uuid: user.uuid, level: Number(user['membership_level'] ?? 1) }
}
