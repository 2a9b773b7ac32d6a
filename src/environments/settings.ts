import { z } from 'zod'
import type { JsonObject } from '../eventlog/port.js'
import { drfBoolean, drfInteger } from '../http/drf.js'
import { invalidChoice } from '../kernel/python-text.js'

/** A time zone name the runtime knows (IANA names and their aliases). */
export const isTimeZone = (name: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

const timezone = z.string().refine(isTimeZone, { error: (issue) => invalidChoice(issue.input), params: { drfCode: 'invalid_choice' } })
const json = z.unknown()
const strings = z.array(z.string())

/** Every environment setting PostHog accepts on create and PATCH, with its type. */
export const settingsShape = {
  app_urls: strings.nullable(),
  slack_incoming_webhook: z.string().nullable(),
  anonymize_ips: drfBoolean,
  completed_snippet_onboarding: drfBoolean,
  test_account_filters: json,
  test_account_filters_default_checked: drfBoolean.nullable(),
  path_cleaning_filters: json,
  is_demo: drfBoolean,
  timezone,
  data_attributes: json,
  person_display_name_properties: strings.nullable(),
  correlation_config: json,
  autocapture_opt_out: drfBoolean.nullable(),
  autocapture_exceptions_opt_in: drfBoolean.nullable(),
  autocapture_web_vitals_opt_in: drfBoolean.nullable(),
  autocapture_web_vitals_allowed_metrics: json,
  autocapture_exceptions_errors_to_ignore: json,
  capture_console_log_opt_in: drfBoolean.nullable(),
  capture_performance_opt_in: drfBoolean.nullable(),
  session_recording_opt_in: drfBoolean,
  session_recording_sample_rate: z.string().nullable(),
  session_recording_minimum_duration_milliseconds: drfInteger.nullable(),
  session_recording_linked_flag: json,
  session_recording_network_payload_capture_config: json,
  session_recording_url_trigger_config: z.array(z.unknown()).nullable(),
  session_recording_url_blocklist_config: z.array(z.unknown()).nullable(),
  session_recording_event_trigger_config: z.array(z.unknown()).nullable(),
  session_replay_config: json,
  survey_config: json,
  access_control: drfBoolean,
  week_start_day: drfInteger.nullable(),
  primary_dashboard: drfInteger.nullable(),
  live_events_columns: strings.nullable(),
  recording_domains: strings.nullable(),
  cookieless_server_hash_mode: drfInteger.nullable(),
  human_friendly_comparison_periods: drfBoolean.nullable(),
  inject_web_apps: drfBoolean.nullable(),
  extra_settings: json,
  modifiers: json,
  has_completed_onboarding_for: json,
  surveys_opt_in: drfBoolean.nullable(),
  heatmaps_opt_in: drfBoolean.nullable(),
  flags_persistence_default: drfBoolean.nullable(),
  capture_dead_clicks: drfBoolean.nullable(),
  default_data_theme: drfInteger.nullable(),
  revenue_tracking_config: json,
} as const

export type SettingName = keyof typeof settingsShape

/** PostHog's model defaults for a new environment (team). */
export const DEFAULT_SETTINGS: JsonObject = {
  app_urls: [], slack_incoming_webhook: null, anonymize_ips: false, completed_snippet_onboarding: false,
  test_account_filters: [], test_account_filters_default_checked: null, path_cleaning_filters: [], is_demo: false,
  timezone: 'UTC', data_attributes: ['data-attr'], person_display_name_properties: null, correlation_config: {},
  autocapture_opt_out: null, autocapture_exceptions_opt_in: null, autocapture_web_vitals_opt_in: null,
  autocapture_web_vitals_allowed_metrics: null, autocapture_exceptions_errors_to_ignore: null,
  capture_console_log_opt_in: true, capture_performance_opt_in: true, session_recording_opt_in: false,
  session_recording_sample_rate: null, session_recording_minimum_duration_milliseconds: null,
  session_recording_linked_flag: null, session_recording_network_payload_capture_config: null,
  session_recording_url_trigger_config: [], session_recording_url_blocklist_config: [],
  session_recording_event_trigger_config: [], session_replay_config: null, survey_config: null, access_control: false,
  week_start_day: null, primary_dashboard: null, live_events_columns: null, recording_domains: null,
  cookieless_server_hash_mode: 0, human_friendly_comparison_periods: false, inject_web_apps: false, extra_settings: null,
  modifiers: null, has_completed_onboarding_for: null, surveys_opt_in: null, heatmaps_opt_in: null,
  flags_persistence_default: false, capture_dead_clicks: false, default_data_theme: null, revenue_tracking_config: null,
}

const partialSettings = z.object(settingsShape).partial()

export const createEnvironmentBody = partialSettings.extend({ name: z.string().min(1, { error: 'This field may not be blank.' }).max(200).optional() })
export const updateEnvironmentBody = createEnvironmentBody

/** The settings a body sets, without the name (kept apart as the environment's own field). */
export const settingsOf = (body: z.output<typeof createEnvironmentBody>): JsonObject => {
  const { name: _name, ...settings } = body
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined))
}
