import { z } from 'zod'
import { apiTime } from '../http/timestamps.js'
import { paginatedResponse } from '../http/pagination.js'
import { KeptShapes } from '../kernel/kept-shapes.js'
import { distinctIdsFrom } from './read.js'
import type { DistinctIdPage, PersonRecord } from './records.js'

/** Distinct ids that look generated (UUID-like: five dash-separated groups) count as anonymous. */
const ANONYMOUS_ID = /^([a-z0-9]+-){4}[a-z0-9]+$/
export const isAnonymousId = (id: string): boolean => ANONYMOUS_ID.test(id)

/** PostHog lists identified-looking distinct ids before anonymous ones, otherwise in stored order. */
export const listedDistinctIds = (ids: readonly string[]): string[] =>
  [...ids.filter((id) => !isAnonymousId(id)), ...ids.filter(isAnonymousId)]

/** The person properties PostHog names a person by, in order (`PERSON_DEFAULT_DISPLAY_NAME_PROPERTIES`). */
export const NAME_PROPERTIES = ['email', 'Email', '$email', 'name', 'Name', 'username', 'Username', 'UserName']

/** Python truthiness, which decides whether a property can name the person. */
const truthy = (value: unknown): boolean =>
  value !== null && value !== undefined && value !== false && value !== 0 && value !== '' &&
  !(Array.isArray(value) && value.length === 0) && !(typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)

/** The display name: the first naming property, else the first listed distinct id, else the id. */
const personName = (person: PersonRecord, listed: readonly string[]): unknown => {
  for (const key of NAME_PROPERTIES) if (truthy(person.properties[key])) return person.properties[key]
  return listed[0] ?? String(person.id)
}

/** PostHog's person as its persons API returns it. */
export const PersonResponse = z.object({
  id: z.number(),
  name: z.unknown(),
  distinct_ids: z.array(z.string()),
  properties: z.unknown(),
  created_at: z.string(),
  uuid: z.string(),
  is_identified: z.boolean(),
}).meta({ kept: true })
type PersonShape = z.input<typeof PersonResponse>

export const PersonListResponse = paginatedResponse(PersonResponse)

/** A person with its distinct ids in stored order. */
export const personShape = (person: PersonRecord, distinctIds: readonly string[]): PersonShape => {
  const listed = listedDistinctIds(distinctIds)
  return {
    id: person.id,
    name: personName(person, listed),
    distinct_ids: listed,
    properties: person.properties,
    created_at: apiTime(person.created_at),
    uuid: person.uuid,
    is_identified: person.is_identified,
  }
}

type Pages = readonly (DistinctIdPage | null)[]

const shapes = new KeptShapes<PersonRecord, Pages, PersonShape>()
const withPages = (person: PersonRecord, pages: Pages): PersonShape => personShape(person, distinctIdsFrom(person, pages))

/** A person's shape, its ids from the person and the `pages` read for it, built once per kept person and pages. */
export const personShapeOf = (person: PersonRecord, pages: Pages): PersonShape => shapes.shape(person, pages, withPages)
