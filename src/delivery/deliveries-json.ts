import type { DeliveryRecord } from '../subscriptions/delivery-record.js'
import { apiTime } from '../http/timestamps.js'

/** One entry of a subscription's delivery history. */
export const deliveryJson = (record: DeliveryRecord) => ({
  id: record.id,
  occurrence: record.occurrence,
  status: record.status,
  attempts: record.attempts,
  reason: record.reason,
  target_type: record.target_type,
  target_value: record.target_value,
  recipients: record.recipients,
  test: record.test,
  delivered_at: apiTime(record.at),
})
