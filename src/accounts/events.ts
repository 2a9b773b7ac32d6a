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
export type PersonalApiKeyCreated = {
  type: 'PersonalApiKeyCreated'
  data: { keyId: string; userUuid: string; label: string; scopes: string[] | null; secureValue: string; maskValue: string; at: string }
}
export type PersonalApiKeyRevoked = {
  type: 'PersonalApiKeyRevoked'
  data: { keyId: string; at: string }
}
export type InstallationInitialized = {
  type: 'InstallationInitialized'
  data: { organizationId: string; userUuid: string; userId: number; projectId: number; environmentId: number; at: string }
}

export type AccountEvent =
  | OrganizationCreated | UserCreated | ProjectCreated | EnvironmentCreated | EnvironmentUpdated | EnvironmentTokenReset
  | PersonalApiKeyCreated | PersonalApiKeyRevoked | InstallationInitialized

export const organizationStream = (id: string) => `organization-${id}`
export const userStream = (uuid: string) => `user-${uuid}`
export const projectStream = (id: number) => `project-${id}`
export const environmentStream = (id: number) => `environment-${id}`
export const apiKeyStream = (id: string) => `apikey-${id}`
export const INSTALLATION_STREAM = 'installation'
