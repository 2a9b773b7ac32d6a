import { changedFields } from '../kernel/canonical-json.js'
import { NotFound, assertNever } from '../kernel/errors.js'
import type { Decider } from '../kernel/handle-command.js'
import { SCHEDULE_FIELDS, type SubscriptionCreated, type SubscriptionEvent, type SubscriptionFields } from './events.js'
import { nextDeliveryDate } from './recurrence.js'
import { decideDelivery, type DeliveryCommand } from './delivery-decider.js'
import { evolveSubscription, type Subscription } from './state.js'

export type SubscriptionCommand =
  | DeliveryCommand
  | { type: 'CreateSubscription'; data: Omit<SubscriptionCreated['data'], 'nextDeliveryDate'>; inviteMessage: string | null }
  | { type: 'UpdateSubscription'; changes: Partial<SubscriptionFields>; deleted: boolean | undefined; inviteMessage: string | null; at: string }

const recipients = (fields: Pick<SubscriptionFields, 'target_type' | 'target_value'>): string[] =>
  fields.target_type === 'email' ? fields.target_value.split(',').map((email) => email.trim()).filter((email) => email !== '') : []

const nextDelivery = (fields: SubscriptionFields, now: string): string | null => nextDeliveryDate(fields, now)

export const subscriptionDecider: Decider<Subscription | null, SubscriptionCommand, SubscriptionEvent> = {
  initialState: () => null,
  evolve: evolveSubscription,
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateSubscription': {
        if (state !== null) return []
        const { data } = command
        const events: SubscriptionEvent[] = [{ type: 'SubscriptionCreated', data: { ...data, nextDeliveryDate: nextDelivery(data.fields, data.at) } }]
        const emails = recipients(data.fields)
        if (emails.length > 0) events.push({ type: 'SubscriptionInvitesRequested', data: { emails, inviteMessage: command.inviteMessage, at: data.at } })
        return events
      }
      case 'UpdateSubscription': {
        if (state === null) throw new NotFound()
        const { at } = command
        const events: SubscriptionEvent[] = []
        if (command.deleted === false && state.deleted) events.push({ type: 'SubscriptionRestored', data: { at } })
        const changes = changedFields(state, command.changes)
        if (Object.keys(changes).length > 0) {
          const after = { ...state, ...changes }
          const rescheduled = SCHEDULE_FIELDS.some((field) => field in changes)
          events.push({ type: 'SubscriptionUpdated', data: { changes, ...(rescheduled ? { nextDeliveryDate: nextDelivery(after, at) } : {}), at } })
          const before = new Set(recipients(state))
          const added = recipients(after).filter((email) => !before.has(email))
          if ('target_value' in changes && added.length > 0) {
            events.push({ type: 'SubscriptionInvitesRequested', data: { emails: added, inviteMessage: command.inviteMessage, at } })
          }
        }
        if (command.deleted === true && !state.deleted) events.push({ type: 'SubscriptionDeleted', data: { at } })
        return events
      }
      case 'ClaimDelivery': case 'RecordAttempt': case 'RecordInterrupted': case 'RecordTestDelivery': case 'ClaimInvites':
        return decideDelivery(command, state)
      default:
        return assertNever(command)
    }
  },
}
