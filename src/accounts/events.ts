import { eventTypes } from '../kernel/event-types.js'

/** Accounts: organizations, users, projects, environments (PostHog teams) and personal API keys. */
export type OrganizationCreated = {
  type: 'OrganizationCreated'
  data: { organizationId: string; name: string; at: string }
}
export type UserCreated = {
  type: 'UserCreated'
  data: {
    userUuid: string; userId: number; organizationId: string; distinctId: string; email: string
    firstName: string; lastName: string; membershipLevel: number; at: string
  }
}
export type ProjectCreated = {
  type: 'ProjectCreated'
  data: { projectId: number; organizationId: string; name: string; createdBy: string; at: string }
}
/**
 * An environment counted in its project before the environment itself is created, so that the
 * project's stream orders concurrent creations and holds each to the limits in one place.
 */
export type ProjectEnvironmentAdded = {
  type: 'ProjectEnvironmentAdded'
  /**
   * `creating` is the environment this decides (absent before it was recorded here): its own
   * stream is written from it, at once or, after a crash, by the process that finishes commands.
   */
  data: { projectId: number; environmentId: number; demo: boolean; at: string; creating?: EnvironmentCreated['data'] }
}
export type EnvironmentCreated = {
  type: 'EnvironmentCreated'
  data: {
    environmentId: number; uuid: string; projectId: number; organizationId: string; name: string
    apiToken: string; timezone: string; createdBy: string; at: string
    /** Settings given at creation; absent on environments created before settings were recorded. */
    settings?: Record<string, unknown>
  }
}
export type EnvironmentUpdated = {
  type: 'EnvironmentUpdated'
  data: { environmentId: number; name?: string; settings: Record<string, unknown>; at: string }
}
export type EnvironmentTokenReset = {
  type: 'EnvironmentTokenReset'
  data: { environmentId: number; apiToken: string; at: string }
}
/** The key that signs this environment's subscription webhooks, issued once. */
export type EnvironmentWebhookSecretIssued = {
  type: 'EnvironmentWebhookSecretIssued'
  data: { environmentId: number; secret: string; at: string }
}
export type PersonalApiKeyCreated = {
  type: 'PersonalApiKeyCreated'
  data: {
    keyId: string; userUuid: string; label: string; scopes: string[] | null; secureValue: string; maskValue: string; at: string
    /** Organizations and environments the key is limited to; absent or null on keys that reach all of the user's. */
    scopedOrganizations?: string[] | null; scopedTeams?: number[] | null
  }
}
export type PersonalApiKeyRevoked = {
  type: 'PersonalApiKeyRevoked'
  data: { keyId: string; at: string }
}
export type InstallationInitialized = {
  type: 'InstallationInitialized'
  data: { organizationId: string; userUuid: string; userId: number; projectId: number; environmentId: number; at: string }
}

export type OrganizationRenamed = {
  type: 'OrganizationRenamed'
  data: { organizationId: string; name: string; at: string }
}
/** A member's level set to 1 (member), 8 (admin) or 15 (owner); the join level is the one in `UserCreated`. */
export type OrganizationMemberLevelChanged = {
  type: 'OrganizationMemberLevelChanged'
  data: { organizationId: string; userUuid: string; level: number; at: string }
}
/** A member removed (or who left); their keys stop working with this event. */
export type OrganizationMemberRemoved = {
  type: 'OrganizationMemberRemoved'
  data: { organizationId: string; userUuid: string; at: string }
}

export type OrganizationEvent = OrganizationCreated | OrganizationRenamed | OrganizationMemberLevelChanged | OrganizationMemberRemoved

export type AccountEvent =
  | OrganizationEvent | UserCreated | ProjectCreated | ProjectEnvironmentAdded | EnvironmentCreated | EnvironmentUpdated | EnvironmentTokenReset
  | EnvironmentWebhookSecretIssued
  | PersonalApiKeyCreated | PersonalApiKeyRevoked | InstallationInitialized

export const organizationStream = (id: string) => `organization-${id}`
export const userStream = (uuid: string) => `user-${uuid}`
export const projectStream = (id: number) => `project-${id}`
export const environmentStream = (id: number) => `environment-${id}`
export const apiKeyStream = (id: string) => `apikey-${id}`
export const INSTALLATION_STREAM = 'installation'

/** Every type of the accounts' streams: organizations, users, projects, environments, keys and the installation. */
export const ACCOUNT_EVENT_TYPES = eventTypes<AccountEvent['type']>({
  OrganizationCreated: true, OrganizationRenamed: true, OrganizationMemberLevelChanged: true, OrganizationMemberRemoved: true,
  UserCreated: true, ProjectCreated: true, ProjectEnvironmentAdded: true,
  EnvironmentCreated: true, EnvironmentUpdated: true, EnvironmentTokenReset: true, EnvironmentWebhookSecretIssued: true,
  PersonalApiKeyCreated: true, PersonalApiKeyRevoked: true, InstallationInitialized: true,
})
