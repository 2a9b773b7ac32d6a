import type {
  OrganizationCreated, OrganizationMemberLevelChanged, OrganizationMemberRemoved, OrganizationRenamed, PersonalApiKeyCreated,
  PersonalApiKeyRevoked, ProjectCreated, UserCreated,
} from './events.js'
import type { JsonObject } from '../eventlog/port.js'
import { asDomainEvent, documentProjector } from '../readstore/projector.js'
import type { EnvironmentEvent } from '../environments/decider.js'
import { evolveEnvironmentDocument } from '../environments/document.js'

declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    organizations: JsonObject
    users: JsonObject
    projects: JsonObject
    personal_api_keys: JsonObject
  }
}

export const organizations = documentProjector<JsonObject>({
  name: 'organizations',
  version: 2,
  collection: 'organizations',
  handles: ['OrganizationCreated', 'OrganizationRenamed'],
  idOf: (event) => asDomainEvent<OrganizationCreated | OrganizationRenamed>(event).data.organizationId,
  evolve: (doc, event) => {
    const domain = asDomainEvent<OrganizationCreated | OrganizationRenamed>(event)
    if (domain.type === 'OrganizationRenamed') return doc && { ...doc, name: domain.data.name, updated_at: domain.data.at }
    const { data } = domain
    return { id: data.organizationId, name: data.name, created_at: data.at, updated_at: data.at }
  },
})

type MembershipEvent = UserCreated | OrganizationMemberLevelChanged | OrganizationMemberRemoved

/**
 * Users with their organization and level. A removed member keeps the document (their name
 * still shows as a creator) but loses the organization, which is what makes their keys fail.
 */
export const users = documentProjector<JsonObject>({
  name: 'users',
  version: 2,
  collection: 'users',
  handles: ['UserCreated', 'OrganizationMemberLevelChanged', 'OrganizationMemberRemoved'],
  indexes: [['organization_id'], ['email']],
  idOf: (event) => asDomainEvent<MembershipEvent>(event).data.userUuid,
  evolve: (doc, event) => {
    const domain = asDomainEvent<MembershipEvent>(event)
    switch (domain.type) {
      case 'OrganizationMemberLevelChanged':
        return doc && doc['organization_id'] === domain.data.organizationId ? { ...doc, membership_level: domain.data.level, membership_updated_at: domain.data.at } : doc
      case 'OrganizationMemberRemoved':
        return doc && doc['organization_id'] === domain.data.organizationId
          ? { ...doc, organization_id: null, membership_level: null, removed_from: domain.data.organizationId, removed_at: domain.data.at }
          : doc
      case 'UserCreated': {
        const { data } = domain
        return {
          id: data.userId, uuid: data.userUuid, distinct_id: data.distinctId, first_name: data.firstName,
          last_name: data.lastName, email: data.email, is_email_verified: false, hedgehog_config: null,
          role_at_organization: null, organization_id: data.organizationId, membership_level: data.membershipLevel,
          joined_level: data.membershipLevel, date_joined: data.at, membership_updated_at: data.at,
        }
      }
    }
  },
})

export const projects = documentProjector<JsonObject>({
  name: 'projects',
  version: 1,
  collection: 'projects',
  handles: ['ProjectCreated'],
  indexes: [['organization_id']],
  idOf: (event) => String(asDomainEvent<ProjectCreated>(event).data.projectId),
  evolve: (_doc, event) => {
    const { data } = asDomainEvent<ProjectCreated>(event)
    return { id: data.projectId, organization_id: data.organizationId, name: data.name, created_by: data.createdBy, created_at: data.at }
  },
})

export const environments = documentProjector<JsonObject>({
  name: 'environments',
  version: 3,
  collection: 'environments',
  handles: ['EnvironmentCreated', 'EnvironmentUpdated', 'EnvironmentTokenReset', 'EnvironmentWebhookSecretIssued'],
  indexes: [['api_token'], ['project_id'], ['organization']],
  idOf: (event) => String(asDomainEvent<EnvironmentEvent>(event).data.environmentId),
  evolve: (doc, event) => evolveEnvironmentDocument(doc, asDomainEvent<EnvironmentEvent>(event)),
})

export const personalApiKeys = documentProjector<JsonObject>({
  name: 'personal_api_keys',
  version: 2,
  collection: 'personal_api_keys',
  handles: ['PersonalApiKeyCreated', 'PersonalApiKeyRevoked'],
  indexes: [['secure_value'], ['user_uuid']],
  idOf: (event) => asDomainEvent<PersonalApiKeyCreated | PersonalApiKeyRevoked>(event).data.keyId,
  evolve: (doc, event) => {
    const domain = asDomainEvent<PersonalApiKeyCreated | PersonalApiKeyRevoked>(event)
    if (domain.type === 'PersonalApiKeyRevoked') return doc && { ...doc, revoked_at: domain.data.at }
    const { data } = domain
    return {
      id: data.keyId, user_uuid: data.userUuid, label: data.label, scopes: data.scopes, secure_value: data.secureValue,
      mask_value: data.maskValue, created_at: data.at, revoked_at: null,
      scoped_organizations: data.scopedOrganizations ?? null, scoped_teams: data.scopedTeams ?? null,
    }
  },
})
