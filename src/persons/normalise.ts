import { type JsonObject, isJsonObject } from '../eventlog/port.js'
import type { CapturedEvent } from '../ingestion/captured-event.js'
import { copyOf, overlay, sanitise } from './json.js'

/** A captured event after PostHog's normalisation, as person, group, session and event processing read it. */
export interface NormalisedEvent {
  readonly uuid: string
  readonly event: string
  readonly distinctId: string
  /** ISO 8601, as `Date#toISOString` writes it, so timestamps sort as text. */
  readonly timestamp: string
  /** The properties as stored on the event. */
  readonly properties: JsonObject
  /** False when `$process_person_profile` is `false`: no person or group is created or changed. */
  readonly processPerson: boolean
}

/** Event properties copied to the person (`$set`) and, as `$initial_…`, once (`$set_once`). */
export const LIFTED_PROPERTIES: readonly string[] = [
  '$app_build', '$app_name', '$app_namespace', '$app_version', '$browser', '$browser_version', '$device_type',
  '$current_url', '$pathname', '$os', '$os_version', '$referring_domain', '$referrer', 'utm_source', 'utm_medium',
  'utm_campaign', 'utm_content', 'utm_name', 'utm_term', 'gclid', 'gad_source', 'gbraid', 'wbraid', 'fbclid', 'msclkid',
]
const INITIAL_NAMES = new Map(LIFTED_PROPERTIES.map((key) => [key, `$initial_${key.replace('$', '')}`]))
const NOT_LIFTED_EVENTS = new Set(['$snapshot', '$performance_event'])
/** Without person processing these events mean nothing, so they are dropped. */
const PERSON_ONLY_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify'])
const MAX_DISTINCT_ID_LENGTH = 400
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

const objectOr = (value: unknown): JsonObject => (isJsonObject(value) ? value : {})

/** Adds the lifted properties under `$set` and `$set_once`; what the event set itself wins. */
const liftProperties = (properties: JsonObject): void => {
  let set: JsonObject | null = null
  let setOnce: JsonObject | null = null
  const server = properties['$is_server'] === true
  for (const key of LIFTED_PROPERTIES) {
    const value = properties[key]
    if (value === undefined) continue
    if (server && (key === '$os' || key === '$os_version')) continue
    ;(set ??= {})[key] = value
    ;(setOnce ??= {})[INITIAL_NAMES.get(key)!] = value
  }
  if (set === null) return
  properties['$set'] = overlay(set, properties['$set'])
  properties['$set_once'] = overlay(setOnce!, properties['$set_once'])
}

const timestampOf = (captured: CapturedEvent): string => {
  if (ISO.test(captured.timestamp)) return captured.timestamp
  const ms = Date.parse(captured.timestamp)
  return Number.isNaN(ms) ? captured.now : new Date(ms).toISOString()
}

/** A `$groupidentify` whose `$group_set` is not an object is dropped. */
const invalidGroupSet = (event: string, properties: JsonObject): boolean => {
  if (event !== '$groupidentify') return false
  const groupSet = properties['$group_set']
  return groupSet !== undefined && groupSet !== null && !isJsonObject(groupSet)
}

/**
 * PostHog's normalisation of one captured event, or null when the event is dropped. It never
 * changes `captured`: the projector may run again over the same record.
 */
export const normaliseEvent = (captured: CapturedEvent): NormalisedEvent | null => {
  const distinctId = sanitise(String(captured.distinct_id))
  if (distinctId.length > MAX_DISTINCT_ID_LENGTH) return null
  const properties = copyOf(captured.properties ?? {})
  const processPerson = properties['$process_person_profile'] !== false
  if (!processPerson && PERSON_ONLY_EVENTS.has(captured.event)) return null
  if (processPerson && invalidGroupSet(captured.event, properties)) return null

  if (captured.set) properties['$set'] = overlay(objectOr(properties['$set']), captured.set)
  if (captured.set_once) properties['$set_once'] = overlay(objectOr(properties['$set_once']), captured.set_once)
  if (!properties['$ip'] && captured.ip) properties['$ip'] = captured.ip
  if (processPerson) {
    if (!NOT_LIFTED_EVENTS.has(captured.event)) liftProperties(properties)
    if (Object.hasOwn(properties, '$process_person_profile')) delete properties['$process_person_profile']
  } else {
    delete properties['$set']
    delete properties['$set_once']
    delete properties['$unset']
  }
  if (captured.sent_at) properties['$sent_at'] = captured.sent_at
  return {
    uuid: captured.uuid.toLowerCase(),
    event: captured.event,
    distinctId,
    timestamp: timestampOf(captured),
    properties,
    processPerson,
  }
}
