import type { Position } from '../eventlog/port.js'
import type { CommandContext } from '../kernel/handle-command.js'
import type { Subscription } from '../subscriptions/state.js'
import { attemptDelivery, runSubscriptionCommand, type DeliveryDeps } from './deliver.js'

/**
 * Sends one delivery now, outside the schedule (which it leaves alone), and records its outcome
 * in the subscription's stream; answers where the record landed and its id in the history.
 */
export const testDelivery = async (
  deps: DeliveryDeps, subscription: Subscription, context: CommandContext,
): Promise<{ position: Position | null; id: string }> => {
  const { outcome, target } = await attemptDelivery(deps, subscription, null, context)
  const result = await runSubscriptionCommand(deps.log, subscription.id, {
    type: 'RecordTestDelivery', target, outcome, at: deps.clock().toISOString(),
  }, context)
  return { position: result.position, id: `${subscription.id}:${result.revision}` }
}
