import type { JsonObject } from '../eventlog/port.js'
import type { PersonRecord } from './records.js'
import { apiTime } from '../http/timestamps.js'

/** Distinct ids that look generated (UUID-like: five dash-separated groups) count as anonymous. */
const ANONYMOUS_ID = /^([a-z0-9]+-){4}[a-z0-9]+$/
export const isAnonymousId = (id: string): boolean => ANONYMOUS_ID.test(id)

/** PostHog lists identified-looking distinct ids before anonymous ones, otherwise in stored order. */
export const listedDistinctIds = (ids: readonly string[]): string[] =>
  [...ids.filter((id) => !isAnonymousId(id)), ...ids.filter(isAnonymousId)]

const NAME_PROPERTIES = ['email', 'Email', '$email', 'name', 'Name', 'username', 'Username', 'UserName']

/** Python truthiness, which decides whether a property can name the person. */
const truthy = (value: unknown): boolean =>
  value !== null && value !== undefined && value !== false && value !== 0 && value !== '' &&
  !(Array.isArray(value) && value.length === 0) && !(typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)

/** The display name: the first naming property, else the first non-anonymous distinct id, else the id. */
export const personName = (person: PersonRecord): unknown => {
  for (const key of NAME_PROPERTIES) if (truthy(person.properties[key])) return person.properties[key]
  return listedDistinctIds(person.distinct_ids)[0] ?? String(person.id)
}

/** PostHog's person as its persons API returns it. */
export const personShape = (person: PersonRecord): JsonObject => ({
  id: person.id,
  name: personName(person),
  distinct_ids: listedDistinctIds(person.distinct_ids),
  properties: person.properties,
  created_at: apiTime(person.created_at),
  uuid: person.uuid,
  is_identified: person.is_identified,
})
