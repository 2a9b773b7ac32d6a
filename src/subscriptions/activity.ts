import type { ActivitySource } from '../activity/activity-log.js'
import type { SubscriptionEvent } from './events.js'
import { evolveSubscription, type Subscription } from './state.js'

const ACTIVITY: Record<SubscriptionEvent['type'], string> = {
  SubscriptionCreated: 'created',
  SubscriptionUpdated: 'updated',
  SubscriptionDeleted: 'deleted',
  SubscriptionRestored: 'restored',
  SubscriptionInvitesRequested: 'updated',
}

export const subscriptionActivity: ActivitySource<Subscription | null, SubscriptionEvent> = {
  scope: 'Subscription',
  initialState: null,
  evolve: evolveSubscription,
  activityOf: (event) => ACTIVITY[event.type],
  nameOf: (state) => state?.title ?? null,
  ignoredFields: ['updated_at'],
}
