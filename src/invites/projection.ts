import type { InviteEvent } from './events.js'
import type { JsonObject } from '../eventlog/port.js'
import { asDomainEvent, documentProjector } from '../readstore/projector.js'

declare module '../readstore/documents.js' {
  interface ReadModelDocuments {
    invites: JsonObject
  }
}

/** Pending invites (expired ones included, as PostHog lists them); a used or deleted invite is gone. */
export const invites = documentProjector<JsonObject>({
  name: 'invites',
  version: 2,
  collection: 'invites',
  handles: ['InviteCreated', 'InviteDeleted', 'InviteAccepted'],
  indexes: [['organization_id']],
  idOf: (event) => asDomainEvent<InviteEvent>(event).data.inviteId,
  evolve: (_doc, event) => {
    const domain = asDomainEvent<InviteEvent>(event)
    if (domain.type !== 'InviteCreated') return null
    const { data } = domain
    return {
      id: data.inviteId, organization_id: data.organizationId, target_email: data.email, first_name: data.firstName,
      level: data.level, message: data.message, created_by: data.createdBy, expires_at: data.expiresAt,
      emailing_attempt_made: data.emailingAttemptMade === true, created_at: data.at, updated_at: data.at,
    }
  },
})
