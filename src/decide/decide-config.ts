/** The environment settings that shape the non-flag part of a decide response (spec §2.6 names). */
export interface DecideSettings {
  readonly autocapture_opt_out?: boolean | null
  readonly autocapture_exceptions_opt_in?: boolean | null
  readonly autocapture_web_vitals_opt_in?: boolean | null
  readonly autocapture_web_vitals_allowed_metrics?: unknown
  readonly capture_performance_opt_in?: boolean | null
  readonly capture_console_log_opt_in?: boolean | null
  readonly capture_dead_clicks?: boolean | null
  readonly session_recording_opt_in?: boolean | null
  readonly session_recording_sample_rate?: string | null
  readonly session_recording_minimum_duration_milliseconds?: number | null
  readonly session_recording_linked_flag?: { readonly key?: string; readonly variant?: string | null } | null
  readonly session_recording_network_payload_capture_config?: unknown
  readonly session_recording_url_trigger_config?: unknown
  readonly session_recording_url_blocklist_config?: unknown
  readonly session_recording_event_trigger_config?: unknown
  readonly surveys_opt_in?: boolean | null
  readonly heatmaps_opt_in?: boolean | null
  readonly flags_persistence_default?: boolean | null
}

const linkedFlag = (flag: DecideSettings['session_recording_linked_flag']): unknown => {
  if (!flag?.key) return null
  return flag.variant ? { flag: flag.key, variant: flag.variant } : flag.key
}

const sessionRecording = (settings: DecideSettings): unknown =>
  settings.session_recording_opt_in
    ? {
        endpoint: '/s/',
        consoleLogRecordingEnabled: settings.capture_console_log_opt_in ?? true,
        recorderVersion: 'v2',
        sampleRate: settings.session_recording_sample_rate ?? null,
        minimumDurationMilliseconds: settings.session_recording_minimum_duration_milliseconds ?? null,
        linkedFlag: linkedFlag(settings.session_recording_linked_flag),
        networkPayloadCapture: settings.session_recording_network_payload_capture_config ?? null,
        masking: null,
        urlTriggers: settings.session_recording_url_trigger_config ?? [],
        urlBlocklist: settings.session_recording_url_blocklist_config ?? [],
        eventTriggers: settings.session_recording_event_trigger_config ?? [],
        scriptConfig: null,
      }
    : false

const capturePerformance = (settings: DecideSettings): unknown =>
  settings.capture_performance_opt_in || settings.autocapture_web_vitals_opt_in
    ? {
        network_timing: settings.capture_performance_opt_in ?? false,
        web_vitals: settings.autocapture_web_vitals_opt_in ?? false,
        web_vitals_allowed_metrics: settings.autocapture_web_vitals_allowed_metrics ?? null,
      }
    : false

/**
 * The configuration keys of a decide response (everything but the flags), in PostHog's
 * self-hosted shape. `supportedCompression` lists every body encoding capture accepts.
 */
export const decideConfig = (settings: DecideSettings = {}) => ({
  config: { enable_collect_everything: true },
  toolbarParams: {},
  isAuthenticated: false,
  supportedCompression: ['gzip', 'gzip-js', 'lz64'],
  sessionRecording: sessionRecording(settings),
  captureDeadClicks: settings.capture_dead_clicks ?? false,
  capturePerformance: capturePerformance(settings),
  autocapture_opt_out: settings.autocapture_opt_out ?? false,
  autocaptureExceptions: settings.autocapture_exceptions_opt_in ? { endpoint: '/e/' } : false,
  elementsChainAsString: true,
  surveys: settings.surveys_opt_in ?? false,
  heatmaps: settings.heatmaps_opt_in ?? false,
  flagsPersistenceDefault: settings.flags_persistence_default ?? false,
  defaultIdentifiedOnly: true,
  siteApps: [],
})

export type DecideConfig = Readonly<ReturnType<typeof decideConfig>>
