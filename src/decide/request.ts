import type { Properties } from './match-context.js'
import { isJsonObject } from '../eventlog/port.js'

/** What a decide request asks, read from its decoded body (and query) with PostHog's aliases. */
export interface DecideRequest {
  readonly token: string | null
  readonly distinctId: string | null
  readonly groups: Readonly<Record<string, unknown>>
  readonly personProperties: Properties | null
  readonly groupProperties: Readonly<Record<string, Properties>>
  readonly anonDistinctId: string | null
  readonly geoipDisable: boolean
  readonly disableFlags: boolean
  readonly flagKeys: readonly string[] | null
}


const either = (source: Record<string, unknown>, ...names: string[]): unknown => {
  for (const name of names) if (source[name] !== undefined && source[name] !== null) return source[name]
  return undefined
}

const text = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : null

const flag = (value: unknown): boolean => value === true || value === 'true' || value === 1

/** Distinct ids are cut to 200 characters, as PostHog does. */
const MAX_DISTINCT_ID = 200

export const readDecideRequest = (body: unknown, query: unknown): DecideRequest => {
  const fields = isJsonObject(body) ? body : {}
  const params = isJsonObject(query) ? query : {}
  const token = text(either(fields, 'token', '$token', 'api_key')) ?? text(either(params, 'token', 'api_key'))
  const distinctId = text(either(fields, 'distinct_id', '$distinct_id'))
  const groupProperties = either(fields, 'group_properties', '$group_properties')
  const personProperties = either(fields, 'person_properties', '$properties')
  const flagKeys = either(fields, 'flag_keys_to_evaluate', 'flag_keys')
  return {
    token: token === '' ? null : token,
    distinctId: distinctId === null ? null : distinctId.slice(0, MAX_DISTINCT_ID),
    groups: isJsonObject(either(fields, 'groups', '$groups')) ? either(fields, 'groups', '$groups') as Record<string, unknown> : {},
    personProperties: isJsonObject(personProperties) ? personProperties : null,
    groupProperties: isJsonObject(groupProperties)
      ? Object.fromEntries(Object.entries(groupProperties).filter(([, v]) => isJsonObject(v))) as Record<string, Properties>
      : {},
    anonDistinctId: text(either(fields, '$anon_distinct_id', 'anon_distinct_id')),
    geoipDisable: flag(either(fields, 'geoip_disable', '$geoip_disable')),
    disableFlags: flag(fields['disable_flags']),
    flagKeys: Array.isArray(flagKeys) ? flagKeys.filter((k): k is string => typeof k === 'string') : null,
  }
}
