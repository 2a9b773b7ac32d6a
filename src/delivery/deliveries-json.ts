import { z } from 'zod'
import type { DeliveryRecord } from '../subscriptions/delivery-record.js'
import { apiTime } from '../http/timestamps.js'
import { paginatedResponse } from '../http/pagination.js'

/** One entry of a subscription's delivery history. */
export const DeliveryResponse = z.object({
  id: z.string(),
  occurrence: z.string().nullable(),
  status: z.enum(['delivered', 'failed']),
  attempts: z.number(),
  reason: z.string().nullable(),
  target_type: z.string(),
  target_value: z.string(),
  recipients: z.array(z.string()),
  test: z.boolean(),
  delivered_at: z.string(),
})

export const DeliveryListResponse = paginatedResponse(DeliveryResponse)

export const deliveryJson = (record: DeliveryRecord): z.input<typeof DeliveryResponse> => ({
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
