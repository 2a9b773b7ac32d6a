import type { ActivitySource } from '../kernel/activity-source.js'
import type { SubscriptionEvent } from './events.js'
import { evolveSubscription, type Subscription } from './state.js'

const ACTIVITY: Record<SubscriptionEvent['type'], string> = {
  SubscriptionCreated: 'created',
  SubscriptionUpdated: 'updated',
  SubscriptionDeleted: 'deleted',
  SubscriptionRestored: 'restored',
  SubscriptionInvitesRequested: 'updated',
  SubscriptionDeliveryClaimed: 'delivery started',
  SubscriptionDelivered: 'delivered',
  SubscriptionDeliveryAttemptFailed: 'delivery attempt failed',
  SubscriptionDeliveryFailed: 'delivery failed',
  SubscriptionInvitesClaimed: 'invites sent',
}

export const subscriptionActivity: ActivitySource<Subscription | null, SubscriptionEvent> = {
  scope: 'Subscription',
  initialState: null,
  evolve: evolveSubscription,
  activityOf: (event) => ACTIVITY[event.type],
  nameOf: (state) => state?.title ?? null,
  ignoredFields: ['updated_at', 'delivery', 'invites_owed'],
}
