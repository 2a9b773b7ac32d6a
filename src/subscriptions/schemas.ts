import { z } from 'zod'
import { BasicUserResponse } from '../accounts/users.js'
import { drfBoolean, drfInteger } from '../http/drf.js'
import { paginatedResponse } from '../http/pagination.js'
import { SUBSCRIPTION_FREQUENCIES, SUBSCRIPTION_TARGET_TYPES, SUBSCRIPTION_WEEKDAYS } from './schedule.js'
import { normalizeUtcDateTime } from './utc-datetime.js'

const WRONG_DATETIME = 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].'

/** A date-time as DRF accepts it, answered in PostHog's UTC form (`2022-01-01T00:00:00Z`). */
const dateTime = z.string({ error: WRONG_DATETIME }).transform((value, context) => {
  const normalized = normalizeUtcDateTime(value)
  if (normalized === null) {
    context.addIssue({ code: 'custom', message: WRONG_DATETIME, params: { drfCode: 'invalid' } })
    return z.NEVER
  }
  return normalized
})

const int32 = drfInteger.pipe(z.number().min(-2147483648).max(2147483647, { error: 'Ensure this value is less than or equal to 2147483647.' }))

const fields = {
  dashboard: drfInteger.nullable(),
  insight: drfInteger.nullable(),
  target_type: z.enum(SUBSCRIPTION_TARGET_TYPES),
  target_value: z.string().min(1, { error: 'This field may not be blank.' }),
  frequency: z.enum(SUBSCRIPTION_FREQUENCIES),
  interval: int32.pipe(z.number().min(1, { error: 'Ensure this value is greater than or equal to 1.' })),
  byweekday: z.array(z.enum(SUBSCRIPTION_WEEKDAYS)).nullable(),
  bysetpos: int32.nullable(),
  count: int32.nullable(),
  start_date: dateTime,
  until_date: dateTime.nullable(),
  deleted: drfBoolean,
  title: z.string().max(100, { error: 'Ensure this field has no more than 100 characters.' }).nullable(),
  invite_message: z.string().nullable(),
}

export const createSubscriptionBody = z.object({
  ...fields,
  dashboard: fields.dashboard.optional(),
  insight: fields.insight.optional(),
  interval: fields.interval.optional(),
  byweekday: fields.byweekday.optional(),
  bysetpos: fields.bysetpos.optional(),
  count: fields.count.optional(),
  until_date: fields.until_date.optional(),
  deleted: fields.deleted.optional(),
  title: fields.title.optional(),
  invite_message: fields.invite_message.optional(),
})

export const updateSubscriptionBody = z.object(fields).partial()
export type UpdateSubscriptionBody = z.output<typeof updateSubscriptionBody>

/** PostHog's subscription shape; `invite_message` is write-only and always answered as null. */
export const SubscriptionResponse = z.object({
  id: z.number(),
  dashboard: z.number().nullable(),
  insight: z.number().nullable(),
  target_type: z.string(),
  target_value: z.string(),
  frequency: z.string(),
  interval: z.number(),
  byweekday: z.array(z.string()).nullable(),
  bysetpos: z.number().nullable(),
  count: z.number().nullable(),
  start_date: z.string(),
  until_date: z.string().nullable(),
  created_at: z.string(),
  created_by: BasicUserResponse.nullable(),
  deleted: z.boolean(),
  title: z.string().nullable(),
  summary: z.string(),
  next_delivery_date: z.string().nullable(),
  invite_message: z.null(),
}).meta({ kept: true })

export const SubscriptionListResponse = paginatedResponse(SubscriptionResponse)
