import type { Job } from '../scheduler/scheduler.js'
import { deliveryWork, invitesDue } from '../subscriptions/delivery-policy.js'
import type { Subscription } from '../subscriptions/state.js'
import { attemptDelivery, reportFor, runSubscriptionCommand, schedulerContext, type DeliveryDeps } from './deliver.js'
import { deliveryTarget, subscribedMail } from './targets.js'

export interface DeliveryJobDeps extends DeliveryDeps {
  /** Names this process in the claims it appends. */
  readonly owner: string
  readonly everyMs?: number
}

/** Claims an occurrence (or its retry) through the subscription's stream, sends it, records the outcome. */
const deliverOccurrence = async (deps: DeliveryJobDeps, subscription: Subscription, occurrence: string, attempt: number, now: Date) => {
  const claim = await runSubscriptionCommand(deps.log, subscription.id, {
    type: 'ClaimDelivery', occurrence, attempt, claimedBy: deps.owner, at: now.toISOString(),
  }, schedulerContext(now))
  const claimed = claim.state?.delivery
  if (claim.events.length === 0 || !claim.state || !claimed) return
  const { outcome, target } = await attemptDelivery(deps, claim.state, claimed.occurrence, schedulerContext(deps.clock()))
  await runSubscriptionCommand(deps.log, subscription.id, {
    type: 'RecordAttempt', occurrence: claimed.occurrence, attempt, target, outcome, at: deps.clock().toISOString(),
  }, schedulerContext(deps.clock()))
}

/** Mails the "you've been subscribed" message once to recipients newly added to an e-mail subscription. */
const sendInvites = async (deps: DeliveryJobDeps, subscription: Subscription, now: Date) => {
  const { mailer } = deps.channels
  if (!mailer || subscription.target_type !== 'email') return
  const message = subscription.invites_owed?.invite_message ?? null
  const claim = await runSubscriptionCommand(deps.log, subscription.id, { type: 'ClaimInvites', claimedBy: deps.owner, at: now.toISOString() }, schedulerContext(now))
  const claimed = claim.events.flatMap((event) => (event.type === 'SubscriptionInvitesClaimed' ? event.data.emails : []))
  if (claimed.length === 0 || claim.state === null) return
  const report = await reportFor(deps, claim.state, null, deps.clock())
  if ('refused' in report) return
  for (const email of claimed) {
    await mailer.send(subscribedMail(email, report, message)).catch((error: unknown) =>
      deps.channels.log({ recipient: email, err: error instanceof Error ? error.message : String(error) }, 'a subscription invite could not be sent'))
  }
}

/** One pass of the scheduler over every subscription: due occurrences, retries, interrupted attempts, invites. */
export const runDeliveries = async (deps: DeliveryJobDeps, now: Date): Promise<void> => {
  const subscriptions = await deps.models.find('subscriptions', { where: { deleted: false }, orderBy: [['id', 'asc']] })
  for (const subscription of subscriptions) {
    await serveSubscription(deps, subscription, now).catch((error: unknown) =>
      deps.channels.log({ subscription: subscription.id, err: error }, 'subscription delivery could not run; it is tried again on the next pass'))
  }
}

const serveSubscription = async (deps: DeliveryJobDeps, subscription: Subscription, now: Date): Promise<void> => {
  if (invitesDue(subscription, now).length > 0) await sendInvites(deps, subscription, now)
  const work = deliveryWork(subscription, now)
  if (work === null) return
  if (work.kind === 'deliver') return deliverOccurrence(deps, subscription, work.occurrence, work.attempt, now)
  await runSubscriptionCommand(deps.log, subscription.id, {
    type: 'RecordInterrupted', occurrence: work.occurrence, attempt: work.attempt, target: deliveryTarget(subscription), at: now.toISOString(),
  }, schedulerContext(now))
}

/** The scheduler job that delivers subscriptions; PostHog checks hourly, Hedgelog every 30 s by default. */
export const subscriptionDeliveryJob = (deps: DeliveryJobDeps): Job => ({
  name: 'subscription-delivery',
  everyMs: deps.everyMs ?? 30_000,
  run: (now) => runDeliveries(deps, now),
})
