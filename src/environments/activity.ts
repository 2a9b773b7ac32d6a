import type { ActivitySource } from '../kernel/activity-source.js'
import type { JsonObject } from '../eventlog/port.js'
import type { EnvironmentEvent } from './decider.js'
import { evolveEnvironmentDocument } from './document.js'

const ACTIVITY: Record<EnvironmentEvent['type'], string> = {
  EnvironmentCreated: 'created',
  EnvironmentUpdated: 'updated',
  EnvironmentTokenReset: 'token reset',
  EnvironmentWebhookSecretIssued: 'webhook secret issued',
}

/** An environment's own changes, under the scope PostHog's project settings use. */
export const environmentActivity: ActivitySource<JsonObject | null, EnvironmentEvent> = {
  scope: 'Project',
  initialState: null,
  evolve: evolveEnvironmentDocument,
  activityOf: (event) => ACTIVITY[event.type],
  nameOf: (state) => (typeof state?.['name'] === 'string' ? state['name'] : null),
  ignoredFields: ['updated_at', 'subscription_webhook_secret'],
}
