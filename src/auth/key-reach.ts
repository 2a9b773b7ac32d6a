import { PermissionDenied } from '../kernel/errors.js'
import type { Principal } from './principal.js'

/**
 * Keys limited to some environments (`scoped_teams`) or organizations (`scoped_organizations`)
 * are checked before anything else about the resource, as PostHog does.
 */
export const checkKeyReachesEnvironment = (principal: Principal, environment: { id: number; organization: string }): void => {
  if (principal.scopedTeams !== null && !principal.scopedTeams.includes(environment.id)) {
    throw new PermissionDenied(`API key does not have access to the requested project: ID ${environment.id}.`)
  }
  checkKeyReachesOrganization(principal, environment.organization)
}

export const checkKeyReachesOrganization = (principal: Principal, organizationId: string): void => {
  if (principal.scopedOrganizations !== null && !principal.scopedOrganizations.includes(organizationId)) {
    throw new PermissionDenied(`API key does not have access to the requested organization: ID ${organizationId}.`)
  }
}

export const TEAM_SCOPED_ELSEWHERE = 'API keys with scoped projects are only supported on project-based endpoints.'
