import type { ReadModels } from '../readstore/read-models.js'
import type { EventRecord } from './record.js'
import type { JsonObject } from '../eventlog/port.js'
import { parseElementsChain } from './elements.js'
import { groupIndexProperties, type GroupTypeMapping } from '../groups/groups.js'
import { firstDistinctIdOf, personForDistinctId } from '../persons/read.js'
import { pythonIsoFormat } from '../http/timestamps.js'
import { setOwn } from '../kernel/own-value.js'

const PERSON_SUMMARY_KEYS = ['email', 'name', 'username']

/** The person an events page shows: identified or not, one distinct id, and its naming properties. */
const personSummary = async (models: ReadModels, environmentId: number, distinctId: string): Promise<JsonObject | null> => {
  const person = await personForDistinctId(models, environmentId, distinctId)
  if (!person) return null
  const properties: JsonObject = {}
  for (const key of PERSON_SUMMARY_KEYS) if (Object.hasOwn(person.properties, key)) properties[key] = person.properties[key]
  const first = await firstDistinctIdOf(models, person)
  return { is_identified: person.is_identified, distinct_ids: first === undefined ? [] : [first], properties }
}

/**
 * Stored properties as PostHog's events API returns them: string values lose surrounding
 * double quotes, and `$groups` appear as `$group_<index>` for types mapped (when the event had
 * person processing; a type is mapped the first time such an event names it, and never unmapped).
 */
const listedProperties = (event: EventRecord, mapping: GroupTypeMapping): JsonObject => {
  const properties: JsonObject = {}
  for (const [key, value] of Object.entries(event.properties)) {
    setOwn(properties, key, typeof value === 'string' ? value.replace(/^"+|"+$/g, '') : value)
  }
  if (event.properties['$process_person_profile'] !== false) Object.assign(properties, groupIndexProperties(event.properties['$groups'], mapping))
  return properties
}

/** Shapes a page of events, looking each distinct id's person up once. */
export const eventShapes = async (
  models: ReadModels, environmentId: number, events: readonly EventRecord[], mapping: GroupTypeMapping,
): Promise<JsonObject[]> => {
  const persons = new Map<string, Promise<JsonObject | null>>()
  const personOf = (distinctId: string): Promise<JsonObject | null> => {
    let found = persons.get(distinctId)
    if (!found) persons.set(distinctId, (found = personSummary(models, environmentId, distinctId)))
    return found
  }
  return Promise.all(events.map(async (event) => ({
    id: event.uuid,
    distinct_id: event.distinct_id,
    properties: listedProperties(event, mapping),
    event: event.event,
    timestamp: pythonIsoFormat(event.timestamp),
    person: await personOf(event.distinct_id),
    elements: parseElementsChain(event.elements_chain),
    elements_chain: event.elements_chain,
  })))
}
