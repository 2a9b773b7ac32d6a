import { apiTime } from '../http/timestamps.js'
import type { BasicUser } from '../accounts/user-lookup.js'
import type { Subscription } from './state.js'
import { subscriptionSummary } from './summary.js'

/** PostHog's subscription shape; `invite_message` is write-only and always answered as null. */
export const subscriptionJson = (subscription: Subscription, users: ReadonlyMap<string, BasicUser>) => ({
  id: subscription.id,
  dashboard: subscription.dashboard,
  insight: subscription.insight,
  target_type: subscription.target_type,
  target_value: subscription.target_value,
  frequency: subscription.frequency,
  interval: subscription.interval,
  byweekday: subscription.byweekday,
  bysetpos: subscription.bysetpos,
  count: subscription.count,
  start_date: subscription.start_date,
  until_date: subscription.until_date,
  created_at: apiTime(subscription.created_at),
  created_by: users.get(subscription.created_by) ?? null,
  deleted: subscription.deleted,
  title: subscription.title,
  summary: subscriptionSummary(subscription),
  next_delivery_date: subscription.next_delivery_date,
  invite_message: null,
})
