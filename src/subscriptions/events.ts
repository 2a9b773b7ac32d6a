import type { JsonObject } from '../eventlog/port.js'

export interface SubscriptionFields extends JsonObject {
  dashboard: number | null
  insight: number | null
  target_type: string
  target_value: string
  frequency: string
  interval: number
  byweekday: string[] | null
  bysetpos: number | null
  count: number | null
  start_date: string
  until_date: string | null
  title: string | null
}

export type SubscriptionCreated = {
  type: 'SubscriptionCreated'
  data: { subscriptionId: number; environmentId: number; fields: SubscriptionFields; nextDeliveryDate: string | null; createdBy: string; at: string }
}
export type SubscriptionUpdated = {
  type: 'SubscriptionUpdated'
  /** `nextDeliveryDate` is present when a schedule field changed and the date was computed again. */
  data: { changes: Partial<SubscriptionFields>; nextDeliveryDate?: string | null; at: string }
}
export type SubscriptionDeleted = { type: 'SubscriptionDeleted'; data: { at: string } }
export type SubscriptionRestored = { type: 'SubscriptionRestored'; data: { at: string } }
/** E-mail recipients owed a "you've been subscribed" message: all on create, only new ones on a change. */
export type SubscriptionInvitesRequested = {
  type: 'SubscriptionInvitesRequested'
  data: { emails: string[]; inviteMessage: string | null; at: string }
}

/**
 * A scheduler took an occurrence (attempt 1) or its next retry, with the stream's expected
 * revision, before sending anything: whoever appends this owns the attempt. The first attempt
 * moves `next_delivery_date` on.
 */
export type SubscriptionDeliveryClaimed = {
  type: 'SubscriptionDeliveryClaimed'
  data: { occurrence: string; attempt: number; claimedBy: string; nextDeliveryDate?: string | null; at: string }
}
/** Where a delivery went: the target type, its address (webhook URL, Slack channel, e-mail list) and the e-mail recipients. */
export interface DeliveryTarget extends JsonObject {
  target_type: string
  target_value: string
  recipients: string[]
}
/** `occurrence` is null for a test delivery, which leaves the schedule alone. */
export type SubscriptionDelivered = {
  type: 'SubscriptionDelivered'
  data: { occurrence: string | null; attempts: number; target: DeliveryTarget; test: boolean; at: string }
}
/** One attempt failed in a way worth retrying; the next is due at `retryAt`. */
export type SubscriptionDeliveryAttemptFailed = {
  type: 'SubscriptionDeliveryAttemptFailed'
  data: { occurrence: string; attempt: number; reason: string; retryAt: string; at: string }
}
/** An occurrence given up: attempts used up, a refusal not worth retrying, or an interrupted attempt. */
export type SubscriptionDeliveryFailed = {
  type: 'SubscriptionDeliveryFailed'
  data: { occurrence: string | null; attempts: number; reason: string; target: DeliveryTarget; test: boolean; at: string }
}
/** The "you've been subscribed" messages owed, taken by a scheduler before it mails them. */
export type SubscriptionInvitesClaimed = {
  type: 'SubscriptionInvitesClaimed'
  data: { emails: string[]; claimedBy: string; at: string }
}

export type SubscriptionDeliveryEvent =
  | SubscriptionDeliveryClaimed | SubscriptionDelivered | SubscriptionDeliveryAttemptFailed | SubscriptionDeliveryFailed
  | SubscriptionInvitesClaimed

export type SubscriptionEvent =
  | SubscriptionCreated | SubscriptionUpdated | SubscriptionDeleted | SubscriptionRestored | SubscriptionInvitesRequested
  | SubscriptionDeliveryEvent

export const SUBSCRIPTION_EVENT_TYPES: readonly SubscriptionEvent['type'][] = [
  'SubscriptionCreated', 'SubscriptionUpdated', 'SubscriptionDeleted', 'SubscriptionRestored', 'SubscriptionInvitesRequested',
  'SubscriptionDeliveryClaimed', 'SubscriptionDelivered', 'SubscriptionDeliveryAttemptFailed', 'SubscriptionDeliveryFailed',
  'SubscriptionInvitesClaimed',
]

/** The outcomes a delivery history lists. */
export const DELIVERY_OUTCOME_TYPES = ['SubscriptionDelivered', 'SubscriptionDeliveryFailed'] as const

export const subscriptionStream = (id: number) => `subscription-${id}`

/** The fields whose change moves the next delivery. */
export const SCHEDULE_FIELDS = ['frequency', 'count', 'interval', 'start_date', 'until_date', 'bysetpos', 'byweekday'] as const
