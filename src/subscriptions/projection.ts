import { SUBSCRIPTION_EVENT_TYPES, type SubscriptionEvent } from './events.js'
import { evolveSubscription, type Subscription } from './state.js'
import { asDomainEvent, documentProjector } from '../readstore/projector.js'

/** Subscriptions with their next delivery date, exactly as their events leave them. */
export const subscriptions = documentProjector<Subscription>({
  name: 'subscriptions',
  version: 2,
  collection: 'subscriptions',
  handles: SUBSCRIPTION_EVENT_TYPES,
  indexes: [['environment_id']],
  idOf: (event) => event.streamId.slice('subscription-'.length),
  evolve: (doc, event) => evolveSubscription(doc, asDomainEvent<SubscriptionEvent>(event)),
})
