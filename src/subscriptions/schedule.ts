/** Delivery channels PostHog accepts for `target_type`. */
export const SUBSCRIPTION_TARGET_TYPES = ['email', 'slack', 'webhook'] as const
export type SubscriptionTargetType = (typeof SUBSCRIPTION_TARGET_TYPES)[number]

/** `frequency` values, each the FREQ of the recurrence rule. */
export const SUBSCRIPTION_FREQUENCIES = ['daily', 'weekly', 'monthly', 'yearly'] as const
export type SubscriptionFrequency = (typeof SUBSCRIPTION_FREQUENCIES)[number]

/** `byweekday` names in PostHog's order; the index is the weekday number (Monday = 0). */
export const SUBSCRIPTION_WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const
export type SubscriptionWeekday = (typeof SUBSCRIPTION_WEEKDAYS)[number]

/**
 * The recurrence fields of a subscription as the API shows them. `frequency` and `byweekday` stay
 * plain strings so that stored values PostHog would not recognise still get its fallback summary.
 */
export interface Schedule {
  readonly frequency: string
  readonly interval: number
  readonly byweekday: readonly string[] | null
  readonly bysetpos: number | null
  readonly count: number | null
  /** ISO 8601 date-time; a value without an offset is UTC. */
  readonly start_date: string
  readonly until_date: string | null
}

export const isSubscriptionTargetType = (value: unknown): value is SubscriptionTargetType =>
  (SUBSCRIPTION_TARGET_TYPES as readonly unknown[]).includes(value)

export const isSubscriptionFrequency = (value: unknown): value is SubscriptionFrequency =>
  (SUBSCRIPTION_FREQUENCIES as readonly unknown[]).includes(value)

export const isSubscriptionWeekday = (value: unknown): value is SubscriptionWeekday =>
  (SUBSCRIPTION_WEEKDAYS as readonly unknown[]).includes(value)
