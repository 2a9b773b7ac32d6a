import type { EventLog, JsonObject } from '../eventlog/port.js'
import { handleCommand, type CommandContext, type CommandResult } from '../kernel/handle-command.js'
import { newEventId } from '../kernel/ids.js'
import type { ReadModels } from '../readstore/read-models.js'
import type { AttemptOutcome } from '../subscriptions/delivery-decider.js'
import { subscriptionDecider, type SubscriptionCommand } from '../subscriptions/decider.js'
import { subscriptionStream, type DeliveryTarget, type SubscriptionEvent } from '../subscriptions/events.js'
import type { Subscription } from '../subscriptions/state.js'
import { buildReport, type Report } from './report.js'
import { deliveryTarget, sendReport, type Channels } from './targets.js'
import { webhookSecretOf } from './webhook-secret.js'

export interface DeliveryDeps {
  readonly log: EventLog
  readonly models: ReadModels
  readonly channels: Channels
  /** Where users open Hedgelog's pages; links in deliveries start with it. */
  readonly publicUrl: string
  readonly clock: () => Date
}

export const schedulerContext = (now: Date): CommandContext => ({ actor: 'scheduler', now: now.toISOString(), correlationId: newEventId() })

export const runSubscriptionCommand = (
  log: EventLog, subscriptionId: number, command: SubscriptionCommand, context: CommandContext,
): Promise<CommandResult<Subscription | null, SubscriptionEvent>> =>
  handleCommand(log, subscriptionDecider, subscriptionStream(subscriptionId), command, context)

/** The report of a subscription's dashboard, or why there is none to send. */
export const reportFor = async (
  deps: DeliveryDeps, subscription: Subscription, occurrence: string | null, sentAt: Date,
): Promise<Report | { refused: string }> => {
  if (subscription.dashboard === null) return { refused: 'the subscription names no dashboard' }
  const dashboard = await deps.models.get('dashboards', String(subscription.dashboard))
  if (!dashboard || dashboard.deleted || dashboard.environment_id !== subscription.environment_id) {
    return { refused: `dashboard ${subscription.dashboard} no longer exists` }
  }
  return buildReport(subscription, dashboard, deps.publicUrl, occurrence, sentAt.toISOString())
}

/** Builds and sends one delivery of `subscription`; never throws for what the target does. */
export const attemptDelivery = async (
  deps: DeliveryDeps, subscription: Subscription, occurrence: string | null, context: CommandContext,
): Promise<{ outcome: AttemptOutcome; target: DeliveryTarget }> => {
  const report = await reportFor(deps, subscription, occurrence, deps.clock())
  if ('refused' in report) return { outcome: { status: 'refused', reason: report.refused }, target: deliveryTarget(subscription) }
  const environment = await deps.models.get('environments', String(subscription.environment_id))
  const settings = (environment?.['settings'] ?? {}) as JsonObject
  const slackWebhook = typeof settings['slack_incoming_webhook'] === 'string' ? settings['slack_incoming_webhook'] : null
  const webhookSecret = subscription.target_type === 'webhook' ? await webhookSecretOf(deps.log, subscription.environment_id, context) : ''
  return sendReport(report, subscription, { webhookSecret, slackWebhook }, deps.channels)
}
