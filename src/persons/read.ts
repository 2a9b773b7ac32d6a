import type { JsonObject } from '../eventlog/port.js'
import type { ReadModels } from '../readstore/read-models.js'
import { groupKey, type GroupRecord, type GroupType } from '../groups/groups.js'
import { distinctIdKey, distinctIdPageKey, personKey, type DistinctIdPage, type PersonRecord } from './records.js'

/** The person a distinct id belongs to; null when it has none (never seen, or seen only without person processing). */
export const personForDistinctId = async (
  models: ReadModels, environmentId: number, distinctId: string,
): Promise<PersonRecord | null> => {
  const mapping = await models.get('person_distinct_ids', distinctIdKey(environmentId, distinctId))
  if (!mapping?.person_id) return null
  return models.get('persons', personKey(environmentId, mapping.person_id))
}

/** A person whose ids all fit in the person itself has no page documents to read. */
const NO_PAGES: readonly (DistinctIdPage | null)[] = Object.freeze([])

/**
 * The page documents of a person's distinct ids, first page to last: null for page 0 (kept in
 * the person) and for an empty page; none at all when page 0 is the only page.
 */
export const distinctIdPagesOf = async (models: ReadModels, person: PersonRecord): Promise<readonly (DistinctIdPage | null)[]> => {
  if (person.first_page === 0 && person.last_page === 0) return NO_PAGES
  const pages: Promise<DistinctIdPage | null>[] = []
  for (let page = person.first_page; page <= person.last_page; page++) {
    pages.push(page === 0 ? Promise.resolve(null) : models.get('person_distinct_id_pages', distinctIdPageKey(person.environment_id, person.uuid, page)))
  }
  return Promise.all(pages)
}

/** A person's distinct ids in stored order, from the person and what `distinctIdPagesOf` read. */
export const distinctIdsFrom = (person: PersonRecord, pages: readonly (DistinctIdPage | null)[]): readonly string[] => {
  if (pages.length === 0) return person.distinct_ids
  return pages.flatMap((page, index) => (person.first_page + index === 0 ? person.distinct_ids : page?.ids ?? []))
}

/** The first of a person's distinct ids in stored order, reading its pages only as far as needed. */
export const firstDistinctIdOf = async (models: ReadModels, person: PersonRecord): Promise<string | undefined> => {
  for (let page = person.first_page; page <= person.last_page; page++) {
    const ids = page === 0
      ? person.distinct_ids
      : (await models.get('person_distinct_id_pages', distinctIdPageKey(person.environment_id, person.uuid, page)))?.ids ?? []
    if (ids.length > 0) return ids[0]
  }
  return undefined
}

/**
 * What `personPropertiesFor` would answer, when the read models hold both documents in memory;
 * undefined when one of them has to be read.
 */
export const personPropertiesNow = (models: ReadModels, environmentId: number, distinctId: string): JsonObject | null | undefined => {
  const mapping = models.peek('person_distinct_ids', distinctIdKey(environmentId, distinctId))
  if (mapping === undefined) return undefined
  if (!mapping?.person_id) return null
  const person = models.peek('persons', personKey(environmentId, mapping.person_id))
  return person === undefined ? undefined : person?.properties ?? null
}

/** The stored properties of a distinct id's person, or null when it has no person. */
export const personPropertiesFor = async (
  models: ReadModels, environmentId: number, distinctId: string,
): Promise<JsonObject | null> => (await personForDistinctId(models, environmentId, distinctId))?.properties ?? null

/** The environment's group types, ordered by index (0–4). */
export const groupTypesFor = async (models: ReadModels, environmentId: number): Promise<GroupType[]> =>
  (await models.get('group_type_mappings', String(environmentId)))?.types ?? []

/** The index of a named group type, or null when the environment has not seen it. */
export const groupTypeIndexFor = async (models: ReadModels, environmentId: number, groupType: string): Promise<number | null> =>
  (await groupTypesFor(models, environmentId)).find((type) => type.group_type === groupType)?.group_type_index ?? null

export const groupFor = (models: ReadModels, environmentId: number, groupTypeIndex: number, key: string): Promise<GroupRecord | null> =>
  models.get('groups', groupKey(environmentId, groupTypeIndex, key))

/** A group's properties, or null when the group does not exist. */
export const groupPropertiesFor = async (
  models: ReadModels, environmentId: number, groupTypeIndex: number, key: string,
): Promise<JsonObject | null> => (await groupFor(models, environmentId, groupTypeIndex, key))?.group_properties ?? null
