import { DELIVERY_OUTCOME_TYPES, type SubscriptionDelivered, type SubscriptionDeliveryFailed } from './events.js'
import type { DeliveryRecord } from './delivery-record.js'
import { asDomainEvent, type Projector } from '../readstore/projector.js'

/** The delivery history of every subscription: one document per `SubscriptionDelivered` or `SubscriptionDeliveryFailed`. */
export const subscriptionDeliveries: Projector = {
  name: 'subscription_deliveries',
  version: 1,
  collections: ['subscription_deliveries'],
  handles: DELIVERY_OUTCOME_TYPES,
  indexes: { subscription_deliveries: [['subscription_id', 'sequence']] },
  apply(view, event) {
    const { type, data } = asDomainEvent<SubscriptionDelivered | SubscriptionDeliveryFailed>(event)
    const subscriptionId = Number(event.streamId.slice('subscription-'.length))
    const sequence = Number(event.revision)
    const record: DeliveryRecord = {
      id: `${subscriptionId}:${sequence}`, subscription_id: subscriptionId, sequence, occurrence: data.occurrence,
      status: type === 'SubscriptionDelivered' ? 'delivered' : 'failed', attempts: data.attempts,
      reason: 'reason' in data ? data.reason : null, target_type: data.target.target_type, target_value: data.target.target_value,
      recipients: data.target.recipients, test: data.test, at: data.at,
    }
    view.put('subscription_deliveries', record.id, record)
  },
}
