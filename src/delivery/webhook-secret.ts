import { randomBytes } from 'node:crypto'
import { environmentStream } from '../accounts/events.js'
import type { EventLog } from '../eventlog/port.js'
import { environmentDecider } from '../environments/decider.js'
import { handleCommand, type CommandContext } from '../kernel/handle-command.js'

export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64url')}`

/**
 * The environment's webhook signing secret, read from its stream (not the read model, so a secret
 * just issued by another process is the one used), issuing one the first time it is needed.
 */
export const webhookSecretOf = async (log: EventLog, environmentId: number, context: CommandContext): Promise<string> => {
  const { state } = await handleCommand(log, environmentDecider, environmentStream(environmentId), {
    type: 'IssueWebhookSecret', secret: newWebhookSecret(), at: context.now,
  }, context)
  if (state.status !== 'created' || state.webhookSecret === undefined) throw new Error(`environment ${environmentId} has no stream to hold a webhook secret`)
  return state.webhookSecret
}
