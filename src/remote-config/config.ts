import type { DecideSettings } from '../decide/decide-config.js'

/** What besides the settings shapes the remote config: whether flags and surveys exist. */
export interface RemoteConfigFacts {
  /** Any active flag: posthog-js asks `/flags` only when this is not false. */
  readonly hasFeatureFlags: boolean
  /** Any running survey: posthog-js then loads its surveys extension. */
  readonly hasRunningSurveys: boolean
}

export type RemoteConfig = Readonly<Record<string, unknown>>

const capturePerformance = (settings: DecideSettings): unknown =>
  settings.capture_performance_opt_in || settings.autocapture_web_vitals_opt_in
    ? {
        network_timing: Boolean(settings.capture_performance_opt_in),
        web_vitals: Boolean(settings.autocapture_web_vitals_opt_in),
        web_vitals_allowed_metrics: settings.autocapture_web_vitals_allowed_metrics ?? null,
      }
    : false

/**
 * The remote config posthog-js loads from `/array/{token}/config` (and its script form), built
 * from the environment's settings as PostHog builds it. Session recording and site apps are
 * features Hedgelog does not provide, so they are always reported off; there is no `analytics`
 * endpoint, so posthog-js keeps sending events to `/e/`.
 */
export const remoteConfig = (token: string, settings: DecideSettings, facts: RemoteConfigFacts): RemoteConfig => {
  const exceptions = settings.autocapture_exceptions_opt_in === true
  return {
    token,
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags: facts.hasFeatureFlags,
    captureDeadClicks: Boolean(settings.capture_dead_clicks),
    capturePerformance: capturePerformance(settings),
    autocapture_opt_out: Boolean(settings.autocapture_opt_out),
    autocaptureExceptions: exceptions ? { endpoint: '/e/' } : false,
    elementsChainAsString: true,
    errorTracking: { autocaptureExceptions: exceptions, suppressionRules: [] },
    sessionRecording: false,
    heatmaps: Boolean(settings.heatmaps_opt_in),
    surveys: settings.surveys_opt_in === true || facts.hasRunningSurveys,
    defaultIdentifiedOnly: true,
    siteApps: [],
  }
}

/** The script form: it files the config under the token where posthog-js looks for it. */
export const remoteConfigScript = (token: string, config: RemoteConfig): string => {
  const { siteApps: _siteApps, ...rest } = config
  // JSON is valid JavaScript except for U+2028/U+2029 in older engines; escape them anyway.
  const json = (value: unknown) => JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029')
  return [
    '(function() {',
    '  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};',
    `  window._POSTHOG_REMOTE_CONFIG[${json(token)}] = {`,
    `    config: ${json(rest)},`,
    '    siteApps: []',
    '  }',
    '})();',
  ].join('\n')
}
