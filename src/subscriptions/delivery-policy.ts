import type { Subscription } from './state.js'

/** Attempts per occurrence, the first included. */
export const MAX_DELIVERY_ATTEMPTS = 4

/** The wait before each retry: one minute, then five, then twenty-five. */
export const retryDelayMs = (failedAttempt: number): number => 60_000 * 5 ** (failedAttempt - 1)

/**
 * A claim with no outcome this long after it was made belongs to a scheduler that stopped in the
 * middle. Whether it sent is unknown, so it is recorded as failed rather than sent again.
 */
export const INTERRUPTED_AFTER_MS = 10 * 60_000

/** Invite requests older than this are not mailed: they were recorded before anyone could send them. */
export const INVITE_WINDOW_MS = 60 * 60_000

export type DeliveryWork =
  | { readonly kind: 'deliver'; readonly occurrence: string; readonly attempt: number }
  | { readonly kind: 'interrupted'; readonly occurrence: string; readonly attempt: number }

const reached = (iso: string | null | undefined, now: number): boolean => iso != null && Date.parse(iso) <= now

/** What a scheduler owes a subscription at `now`: its due occurrence, a retry, or settling an interrupted attempt. */
export const deliveryWork = (subscription: Subscription, now: Date): DeliveryWork | null => {
  if (subscription.deleted) return null
  const at = now.getTime()
  const inFlight = subscription.delivery ?? null
  if (inFlight === null) {
    const due = subscription.next_delivery_date
    return due !== null && reached(due, at) ? { kind: 'deliver', occurrence: due, attempt: 1 } : null
  }
  if (inFlight.retry_at !== null) {
    return reached(inFlight.retry_at, at) ? { kind: 'deliver', occurrence: inFlight.occurrence, attempt: inFlight.attempt + 1 } : null
  }
  return Date.parse(inFlight.claimed_at) + INTERRUPTED_AFTER_MS <= at
    ? { kind: 'interrupted', occurrence: inFlight.occurrence, attempt: inFlight.attempt }
    : null
}

/** The e-mails owed an invite at `now`, if any are still within the window. */
export const invitesDue = (subscription: Subscription, now: Date): readonly string[] => {
  const owed = subscription.invites_owed ?? null
  if (subscription.deleted || owed === null || owed.emails.length === 0) return []
  return Date.parse(owed.requested_at) + INVITE_WINDOW_MS > now.getTime() ? owed.emails : []
}
