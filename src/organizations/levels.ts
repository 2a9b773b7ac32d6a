/** PostHog's organization membership levels. */
export const MEMBER_LEVEL = 1
export const ADMIN_LEVEL = 8
export const OWNER_LEVEL = 15

export const MEMBERSHIP_LEVELS = [MEMBER_LEVEL, ADMIN_LEVEL, OWNER_LEVEL] as const
