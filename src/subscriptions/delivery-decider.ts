import { NotFound } from '../kernel/errors.js'
import type { DeliveryTarget, SubscriptionDeliveryEvent } from './events.js'
import { MAX_DELIVERY_ATTEMPTS, invitesDue, retryDelayMs } from './delivery-policy.js'
import { latestOccurrence, nextDeliveryDate } from './recurrence.js'
import type { Subscription } from './state.js'

/** How one attempt ended: sent, failed and worth retrying, or refused (never worth retrying). */
export type AttemptOutcome =
  | { readonly status: 'delivered' }
  | { readonly status: 'failed' | 'refused'; readonly reason: string }

export type DeliveryCommand =
  /** `occurrence` is the due date the caller saw (`next_delivery_date`, or the one being retried). */
  | { type: 'ClaimDelivery'; occurrence: string; attempt: number; claimedBy: string; at: string }
  | { type: 'RecordAttempt'; occurrence: string; attempt: number; target: DeliveryTarget; outcome: AttemptOutcome; at: string }
  | { type: 'RecordInterrupted'; occurrence: string; attempt: number; target: DeliveryTarget; at: string }
  | { type: 'RecordTestDelivery'; target: DeliveryTarget; outcome: AttemptOutcome; at: string }
  | { type: 'ClaimInvites'; claimedBy: string; at: string }

const holds = (state: Subscription, occurrence: string, attempt: number): boolean =>
  state.delivery?.occurrence === occurrence && state.delivery.attempt === attempt && state.delivery.retry_at === null

const claim = (state: Subscription, command: Extract<DeliveryCommand, { type: 'ClaimDelivery' }>): SubscriptionDeliveryEvent[] => {
  const { occurrence, attempt, claimedBy, at } = command
  if (state.deleted) return []
  const now = Date.parse(at)
  const inFlight = state.delivery ?? null
  if (attempt === 1) {
    // Someone else claimed it, or the schedule moved since the caller looked: nothing to take.
    if (inFlight !== null || state.next_delivery_date !== occurrence || Date.parse(occurrence) > now) return []
    // PostHog's rule: the next date comes after the later of this occurrence and now, so a
    // scheduler that was down sends one delivery for the missed run, named for its latest occurrence.
    const latest = latestOccurrence(state, at) ?? occurrence
    return [{ type: 'SubscriptionDeliveryClaimed', data: { occurrence: latest, attempt, claimedBy, nextDeliveryDate: nextDeliveryDate(state, at, occurrence), at } }]
  }
  const waiting = inFlight !== null && inFlight.occurrence === occurrence && inFlight.attempt === attempt - 1 && inFlight.retry_at !== null
  if (!waiting || Date.parse(inFlight.retry_at!) > now) return []
  return [{ type: 'SubscriptionDeliveryClaimed', data: { occurrence, attempt, claimedBy, at } }]
}

const settle = (command: Extract<DeliveryCommand, { type: 'RecordAttempt' }>): SubscriptionDeliveryEvent[] => {
  const { occurrence, attempt, target, outcome, at } = command
  if (outcome.status === 'delivered') {
    return [{ type: 'SubscriptionDelivered', data: { occurrence, attempts: attempt, target, test: false, at } }]
  }
  if (outcome.status === 'failed' && attempt < MAX_DELIVERY_ATTEMPTS) {
    const retryAt = new Date(Date.parse(at) + retryDelayMs(attempt)).toISOString()
    return [{ type: 'SubscriptionDeliveryAttemptFailed', data: { occurrence, attempt, reason: outcome.reason, retryAt, at } }]
  }
  return [{ type: 'SubscriptionDeliveryFailed', data: { occurrence, attempts: attempt, reason: outcome.reason, target, test: false, at } }]
}

/** The delivery rules of a subscription: who may take an occurrence, and what each outcome records. */
export const decideDelivery = (command: DeliveryCommand, state: Subscription | null): SubscriptionDeliveryEvent[] => {
  if (state === null) throw new NotFound()
  switch (command.type) {
    case 'ClaimDelivery': return claim(state, command)
    case 'RecordAttempt': return holds(state, command.occurrence, command.attempt) ? settle(command) : []
    case 'RecordInterrupted': {
      const { occurrence, attempt, target, at } = command
      if (!holds(state, occurrence, attempt)) return []
      const reason = 'interrupted: the scheduler stopped before recording the outcome, so it is not sent again'
      return [{ type: 'SubscriptionDeliveryFailed', data: { occurrence, attempts: attempt, reason, target, test: false, at } }]
    }
    case 'RecordTestDelivery': {
      const { target, outcome, at } = command
      return outcome.status === 'delivered'
        ? [{ type: 'SubscriptionDelivered', data: { occurrence: null, attempts: 1, target, test: true, at } }]
        : [{ type: 'SubscriptionDeliveryFailed', data: { occurrence: null, attempts: 1, reason: outcome.reason, target, test: true, at } }]
    }
    case 'ClaimInvites': {
      const emails = invitesDue(state, new Date(command.at))
      return emails.length === 0 ? [] : [{ type: 'SubscriptionInvitesClaimed', data: { emails: [...emails], claimedBy: command.claimedBy, at: command.at } }]
    }
  }
}
