import type { JsonObject } from '../eventlog/port.js'
import { channelTypeOf } from './channel-type.js'
import { ENTRY_SOURCES, type SessionRecord } from './sessions.js'
import { urlParts } from './urls.js'

export type SessionPropertyType = 'String' | 'Numeric' | 'DateTime' | 'Boolean' | 'Duration'

const entryKey = (source: string): string => `$entry_${source.replace(/^\$/, '')}`

/** The session properties PostHog lists (sessions v2), with their types, in its order. */
export const SESSION_PROPERTIES: readonly (readonly [name: string, type: SessionPropertyType])[] = [
  ['$start_timestamp', 'DateTime'], ['$end_timestamp', 'DateTime'],
  ['$entry_current_url', 'String'], ['$entry_pathname', 'String'], ['$entry_hostname', 'String'],
  ['$end_current_url', 'String'], ['$end_pathname', 'String'], ['$end_hostname', 'String'],
  ...ENTRY_SOURCES.filter((source) => source !== '$current_url').map((source) => [entryKey(source), 'String'] as const),
  ['$channel_type', 'String'], ['$last_external_click_url', 'String'],
  ['$pageview_count', 'Numeric'], ['$autocapture_count', 'Numeric'], ['$screen_count', 'Numeric'], ['$vitals_lcp', 'Numeric'],
  ['$session_duration', 'Duration'], ['$is_bounce', 'Boolean'],
]

/**
 * Which observed event values answer the values helper for a string session property: entry
 * and end URLs share `$current_url`, their paths and hosts its parts.
 */
export const VALUE_SOURCE: ReadonlyMap<string, string> = new Map([
  ['$entry_current_url', '$current_url'], ['$end_current_url', '$current_url'],
  ['$entry_pathname', 'url_path'], ['$end_pathname', 'url_path'],
  ['$entry_hostname', 'url_host'], ['$end_hostname', 'url_host'],
  ['$last_external_click_url', '$external_click_url'],
  ...ENTRY_SOURCES.filter((source) => source !== '$current_url').map((source) => [entryKey(source), source] as const),
])

const BOUNCE_SECONDS = 10

/**
 * The session as PostHog's session properties describe it. A session with no page or screen
 * view has no bounce verdict; otherwise it bounced unless it saw a second view, an autocapture,
 * or lasted ten seconds.
 */
export const sessionProperties = (session: SessionRecord): JsonObject => {
  const first = (source: string): string | null => session.entry[source]?.[0] ?? null
  const entryUrl = first('$current_url')
  const endUrl = session.end['$current_url']?.[0] ?? null
  const entryParts = entryUrl === null ? null : urlParts(entryUrl)
  const endParts = endUrl === null ? null : urlParts(endUrl)
  const duration = Math.floor((Date.parse(session.end_timestamp) - Date.parse(session.start_timestamp)) / 1000)
  const views = session.pageview_count + session.screen_count
  const out: JsonObject = {
    $start_timestamp: session.start_timestamp,
    $end_timestamp: session.end_timestamp,
    $entry_current_url: entryUrl,
    $entry_pathname: entryParts?.path ?? null,
    $entry_hostname: entryParts?.host ?? null,
    $end_current_url: endUrl,
    $end_pathname: endParts?.path ?? null,
    $end_hostname: endParts?.host ?? null,
  }
  for (const source of ENTRY_SOURCES) if (source !== '$current_url') out[entryKey(source)] = first(source)
  out['$channel_type'] = channelTypeOf({
    source: first('utm_source'), medium: first('utm_medium'), campaign: first('utm_campaign'),
    referringDomain: first('$referring_domain'), gclid: first('gclid'), gadSource: first('gad_source'), fbclid: first('fbclid'),
  })
  out['$last_external_click_url'] = session.end['$external_click_url']?.[0] ?? null
  out['$pageview_count'] = session.pageview_count
  out['$autocapture_count'] = session.autocapture_count
  out['$screen_count'] = session.screen_count
  out['$vitals_lcp'] = null
  out['$session_duration'] = duration
  out['$is_bounce'] = views === 0 ? null : !(views > 1 || session.autocapture_count > 0 || duration >= BOUNCE_SECONDS)
  return out
}
