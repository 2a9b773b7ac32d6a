import type { JsonObject } from '../eventlog/port.js'
import type { EnvironmentEvent } from './decider.js'
import { DEFAULT_SETTINGS } from './settings.js'

/** An environment as its events leave it; the read model stores exactly this document. */
export const evolveEnvironmentDocument = (doc: JsonObject | null, event: EnvironmentEvent): JsonObject | null => {
  switch (event.type) {
    case 'EnvironmentCreated': {
      const { data } = event
      const settings = { ...DEFAULT_SETTINGS, timezone: data.timezone, ...data.settings }
      return {
        id: data.environmentId, uuid: data.uuid, organization: data.organizationId, project_id: data.projectId,
        api_token: data.apiToken, name: data.name, timezone: settings['timezone'], created_by: data.createdBy,
        created_at: data.at, updated_at: data.at, settings,
      }
    }
    case 'EnvironmentUpdated': {
      if (!doc) return null
      const settings = { ...(doc['settings'] as JsonObject), ...event.data.settings }
      return { ...doc, name: event.data.name ?? doc['name'], timezone: settings['timezone'], settings, updated_at: event.data.at }
    }
    case 'EnvironmentTokenReset':
      return doc && { ...doc, api_token: event.data.apiToken, updated_at: event.data.at }
    case 'EnvironmentWebhookSecretIssued':
      return doc && { ...doc, subscription_webhook_secret: event.data.secret }
  }
}
