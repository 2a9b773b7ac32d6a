import type { JsonObject } from '../eventlog/port.js'
import { assertNever } from '../kernel/errors.js'
import type { SubscriptionEvent, SubscriptionFields } from './events.js'

/** The attempt a scheduler holds: claimed and not yet settled, or failed and waiting for `retry_at`. */
export interface DeliveryInFlight extends JsonObject {
  occurrence: string
  attempt: number
  claimed_by: string
  claimed_at: string
  retry_at: string | null
}

/** Recipients still owed the "you've been subscribed" message, with the message to send them. */
export interface InvitesOwed extends JsonObject {
  emails: string[]
  invite_message: string | null
  requested_at: string
}

/** A subscription as its events leave it; the read model stores exactly this document. */
export interface Subscription extends SubscriptionFields {
  id: number
  environment_id: number
  deleted: boolean
  next_delivery_date: string | null
  created_by: string
  created_at: string
  updated_at: string
  /** Absent on documents folded before deliveries existed; read with `?? null`. */
  delivery?: DeliveryInFlight | null
  invites_owed?: InvitesOwed | null
}

const owing = (owed: InvitesOwed | null | undefined, emails: readonly string[], message: string | null, at: string): InvitesOwed => ({
  emails: [...new Set([...(owed?.emails ?? []), ...emails])],
  invite_message: message ?? owed?.invite_message ?? null,
  requested_at: at,
})

export const evolveSubscription = (state: Subscription | null, event: SubscriptionEvent): Subscription | null => {
  if (event.type === 'SubscriptionCreated') {
    const { data } = event
    return {
      ...data.fields, id: data.subscriptionId, environment_id: data.environmentId, deleted: false,
      next_delivery_date: data.nextDeliveryDate, created_by: data.createdBy, created_at: data.at, updated_at: data.at,
      delivery: null, invites_owed: null,
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
    case 'SubscriptionInvitesRequested': {
      const { emails, inviteMessage, at } = event.data
      return { ...state, invites_owed: owing(state.invites_owed, emails, inviteMessage, at) }
    }
    case 'SubscriptionDeliveryClaimed': {
      const { occurrence, attempt, claimedBy, nextDeliveryDate, at } = event.data
      return {
        ...state,
        ...(nextDeliveryDate !== undefined ? { next_delivery_date: nextDeliveryDate } : {}),
        delivery: { occurrence, attempt, claimed_by: claimedBy, claimed_at: at, retry_at: null },
      }
    }
    case 'SubscriptionDeliveryAttemptFailed':
      return state.delivery ? { ...state, delivery: { ...state.delivery, retry_at: event.data.retryAt } } : state
    case 'SubscriptionDelivered':
    case 'SubscriptionDeliveryFailed':
      return event.data.test ? state : { ...state, delivery: null }
    case 'SubscriptionInvitesClaimed': {
      const left = (state.invites_owed?.emails ?? []).filter((email) => !event.data.emails.includes(email))
      return { ...state, invites_owed: left.length > 0 && state.invites_owed ? { ...state.invites_owed, emails: left } : null }
    }
    default: return assertNever(event)
  }
}

/** The read model's documents, under their collection names, as `ReadModels` reads them. */
declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    subscriptions: Subscription
  }
}
