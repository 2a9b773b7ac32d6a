import type { FeatureModule } from '../http/feature-module.js'
import { subscriptionActivity } from './activity.js'
import { subscriptionDeliveries } from './deliveries-projection.js'
import { SUBSCRIPTION_EVENT_TYPES, subscriptionStream } from './events.js'
import { subscriptions } from './projection.js'
import type { SubscriptionDeps } from './routes.js'

/** Subscriptions to dashboards, and the record of their deliveries. */
export const subscriptionsModule: FeatureModule<SubscriptionDeps> = {
  name: 'subscriptions',
  eventTypes: SUBSCRIPTION_EVENT_TYPES,
  projectors: [subscriptions, subscriptionDeliveries],
  audited: [{ kind: 'subscription', collection: 'subscriptions', stream: subscriptionStream, activity: subscriptionActivity }],
  routes: async () => {
    const { subscriptionRoutes } = await import('./routes.js')
    return { environment: [subscriptionRoutes] }
  },
}
