import { PermissionDenied } from '../kernel/errors.js'

/**
 * Environments (not demo ones) a project may hold. PostHog takes this number from the
 * organization's plan (its `environments` feature, and 1 without it); Hedgelog has no plans and
 * fixes it here.
 */
export const MAX_ENVIRONMENTS_PER_PROJECT = 10

/** PostHog's `PremiumMultiEnvironmentPermission` refuses with this, as a 403. */
export const ENVIRONMENT_LIMIT_REACHED =
  'You have reached the maximum limit of allowed environments for your current plan. Upgrade your plan to be able to create and manage more environments.'

/** An environment as the limits count it. */
export interface CountedEnvironment {
  readonly id: number
  readonly projectId: number
  readonly demo: boolean
}

/**
 * PostHog's rule: a demo environment only while the organization has none; any other only while
 * its project holds fewer than the limit of them. `environments` are the organization's.
 */
export const checkEnvironmentLimit = (environments: readonly CountedEnvironment[], projectId: number, demo: boolean): void => {
  const full = demo
    ? environments.some((environment) => environment.demo)
    : environments.filter((environment) => environment.projectId === projectId && !environment.demo).length >= MAX_ENVIRONMENTS_PER_PROJECT
  if (full) throw new PermissionDenied(ENVIRONMENT_LIMIT_REACHED)
}
