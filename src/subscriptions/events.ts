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

export type SubscriptionEvent =
  | SubscriptionCreated | SubscriptionUpdated | SubscriptionDeleted | SubscriptionRestored | SubscriptionInvitesRequested

export const SUBSCRIPTION_EVENT_TYPES: readonly SubscriptionEvent['type'][] = [
  'SubscriptionCreated', 'SubscriptionUpdated', 'SubscriptionDeleted', 'SubscriptionRestored', 'SubscriptionInvitesRequested',
]

export const subscriptionStream = (id: number) => `subscription-${id}`

/** The fields whose change moves the next delivery. */
export const SCHEDULE_FIELDS = ['frequency', 'count', 'interval', 'start_date', 'until_date', 'bysetpos', 'byweekday'] as const
