import { apiTime } from '../http/timestamps.js'
import { FrozenTexts } from '../kernel/frozen-texts.js'
import { JsonObjectText } from '../kernel/json-text.js'
import type { Subscription } from './state.js'
import { subscriptionSummary } from './summary.js'

const written = new FrozenTexts<Subscription>()

/**
 * The shape `subscriptionJson` builds, as JSON text (`JSON.stringify(subscriptionJson(…))`, byte
 * for byte), written once per kept subscription while its creator's text stays the same.
 */
export const subscriptionText = (subscription: Subscription, createdBy: string | null): string =>
  written.text(subscription, [createdBy], () => new JsonObjectText()
    .add('id', subscription.id)
    .add('dashboard', subscription.dashboard)
    .add('insight', subscription.insight)
    .add('target_type', subscription.target_type)
    .add('target_value', subscription.target_value)
    .add('frequency', subscription.frequency)
    .add('interval', subscription.interval)
    .add('byweekday', subscription.byweekday)
    .add('bysetpos', subscription.bysetpos)
    .add('count', subscription.count)
    .add('start_date', subscription.start_date)
    .add('until_date', subscription.until_date)
    .add('created_at', apiTime(subscription.created_at))
    .text('created_by', createdBy)
    .add('deleted', subscription.deleted)
    .add('title', subscription.title)
    .add('summary', subscriptionSummary(subscription))
    .add('next_delivery_date', subscription.next_delivery_date)
    .add('invite_message', null)
    .end())
