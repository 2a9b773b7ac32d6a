import { apiTime } from '../http/timestamps.js'
import type { JsonObject } from '../eventlog/port.js'
import type { Environment } from '../readstore/environment.js'

const settingsOf = (environment: Environment): JsonObject => (environment['settings'] ?? {}) as JsonObject

/** The list shape: exactly the twelve keys PostHog's basic team serializer returns. */
export const environmentBasic = (environment: Environment) => {
  const settings = settingsOf(environment)
  return {
    id: environment.id,
    uuid: environment['uuid'],
    organization: environment.organization,
    project_id: environment.project_id,
    api_token: environment.api_token,
    name: environment['name'],
    completed_snippet_onboarding: settings['completed_snippet_onboarding'] ?? false,
    has_completed_onboarding_for: settings['has_completed_onboarding_for'] ?? null,
    ingested_event: false,
    is_demo: settings['is_demo'] ?? false,
    timezone: environment['timezone'],
    access_control: settings['access_control'] ?? false,
  }
}

/** The full team serializer: every setting plus the response-only fields. */
export const environmentDetail = (environment: Environment, membershipLevel: number) => ({
  ...settingsOf(environment),
  ...environmentBasic(environment),
  created_at: apiTime(environment['created_at'] as string),
  updated_at: apiTime(environment['updated_at'] as string),
  effective_membership_level: membershipLevel,
  has_group_types: false,
  group_types: [],
  person_on_events_querying_enabled: true,
  default_modifiers: {},
  live_events_token: null,
  product_intents: [],
  user_access_level: membershipLevel >= 8 ? 'admin' : 'member',
  /** Signs subscription webhooks; shown to admins, like PostHog's secret token. */
  subscription_webhook_secret: membershipLevel >= 8 ? environment['subscription_webhook_secret'] ?? null : null,
})
