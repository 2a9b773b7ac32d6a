import { assertNever } from '../kernel/errors.js'
import type { SubscriptionEvent, SubscriptionFields } from './events.js'

/** A subscription as its events leave it; the read model stores exactly this document. */
export interface Subscription extends SubscriptionFields {
  id: number
  environment_id: number
  deleted: boolean
  next_delivery_date: string | null
  created_by: string
  created_at: string
  updated_at: string
}

export const evolveSubscription = (state: Subscription | null, event: SubscriptionEvent): Subscription | null => {
  if (event.type === 'SubscriptionCreated') {
    const { data } = event
    return {
      ...data.fields, id: data.subscriptionId, environment_id: data.environmentId, deleted: false,
      next_delivery_date: data.nextDeliveryDate, created_by: data.createdBy, created_at: data.at, updated_at: data.at,
    }
  }
  if (state === null) return null
  switch (event.type) {
    case 'SubscriptionUpdated': {
      const { changes, nextDeliveryDate, at } = event.data
      return { ...state, ...changes, ...(nextDeliveryDate !== undefined ? { next_delivery_date: nextDeliveryDate } : {}), updated_at: at }
    }
    case 'SubscriptionDeleted': return { ...state, deleted: true, updated_at: event.data.at }
    case 'SubscriptionRestored': return { ...state, deleted: false, updated_at: event.data.at }
    case 'SubscriptionInvitesRequested': return state
    default: return assertNever(event)
  }
}
