import type { z } from 'zod'
import { apiTime } from '../http/timestamps.js'
import type { BasicUser } from '../accounts/users.js'
import { KeptShapes } from '../kernel/kept-shapes.js'
import type { SubscriptionResponse } from './schemas.js'
import type { Subscription } from './state.js'
import { subscriptionSummary } from './summary.js'

type SubscriptionShape = z.input<typeof SubscriptionResponse>

const shape = (subscription: Subscription, [createdBy]: [BasicUser | null]): SubscriptionShape => ({
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
  created_by: createdBy,
  deleted: subscription.deleted,
  title: subscription.title,
  summary: subscriptionSummary(subscription),
  next_delivery_date: subscription.next_delivery_date,
  invite_message: null,
})

const shapes = new KeptShapes<Subscription, [BasicUser | null], SubscriptionShape>()

/** A subscription's shape, built once per kept subscription while its creator stays the same. */
export const subscriptionJson = (subscription: Subscription, users: ReadonlyMap<string, BasicUser>): SubscriptionShape =>
  shapes.shape(subscription, [users.get(subscription.created_by) ?? null], shape)
