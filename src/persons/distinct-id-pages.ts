import type { PersonRecord, PersonTables } from './records.js'

/**
 * Distinct ids per page. A person's ids are kept in numbered pages: page 0 in the person itself
 * (`distinct_ids`, all there is for nearly every person), the others in page documents. Attaching an
 * id, or moving an alias to the front, rewrites one or two pages of at most this many ids: never
 * the whole list, however many ids the person has gathered.
 */
export const PAGE_SIZE = 256

const idsAt = (tables: PersonTables, person: PersonRecord, page: number): readonly string[] =>
  page === 0 ? person.distinct_ids : tables.page(person.uuid, page)?.ids ?? []

/** Writes a page; page 0 goes into the person returned, which the caller writes. */
const withIds = (tables: PersonTables, person: PersonRecord, page: number, ids: string[]): PersonRecord => {
  if (page === 0) return { ...person, distinct_ids: ids }
  tables.putPage(person.uuid, page, ids.length === 0 ? null : { environment_id: tables.environmentId, person_id: person.uuid, ids })
  return person
}

const pointTo = (tables: PersonTables, uuid: string, distinctId: string, page: number): void => {
  tables.putDistinctId({ environment_id: tables.environmentId, distinct_id: distinctId, person_id: uuid, page })
}

/** A person's distinct ids in stored order. */
export const distinctIdsOf = (tables: PersonTables, person: PersonRecord): string[] => {
  const ids: string[] = []
  for (let page = person.first_page; page <= person.last_page; page++) ids.push(...idsAt(tables, person, page))
  return ids
}

/**
 * Appends ids after the person's last, filling its last page and starting new ones, and points
 * each id's mapping at the person. The person as it is afterwards, which the caller writes.
 */
export const appendDistinctIds = (tables: PersonTables, person: PersonRecord, distinctIds: readonly string[]): PersonRecord => {
  let last = person.last_page
  let ids = [...idsAt(tables, person, last)]
  let changed = false
  let next = person
  for (const distinctId of distinctIds) {
    if (ids.length >= PAGE_SIZE) {
      if (changed) next = withIds(tables, next, last, ids)
      last += 1
      ids = []
    }
    ids.push(distinctId)
    changed = true
    pointTo(tables, person.uuid, distinctId, last)
  }
  if (changed) next = withIds(tables, next, last, ids)
  return last === next.last_page ? next : { ...next, last_page: last }
}

/** The page holding one of the person's ids: where its mapping says, else found by looking. */
const pageHolding = (tables: PersonTables, person: PersonRecord, distinctId: string): number | null => {
  const noted = tables.distinctId(distinctId)?.page
  if (noted !== undefined && idsAt(tables, person, noted).includes(distinctId)) return noted
  for (let page = person.first_page; page <= person.last_page; page++) {
    if (idsAt(tables, person, page).includes(distinctId)) return page
  }
  return null
}

/** Lists one of the person's ids first. The person as it is afterwards, which the caller writes. */
export const moveDistinctIdFirst = (tables: PersonTables, person: PersonRecord, distinctId: string): PersonRecord => {
  const at = pageHolding(tables, person, distinctId)
  if (at === null) return person
  const holding = idsAt(tables, person, at)
  if (at === person.first_page && holding[0] === distinctId) return person
  const rest = holding.filter((id) => id !== distinctId)
  let next = withIds(tables, person, at, rest)
  let first = next.first_page
  let head = idsAt(tables, next, first)
  if (at === first) head = rest
  if (head.length >= PAGE_SIZE) {
    first -= 1
    head = []
  }
  next = withIds(tables, next, first, [distinctId, ...head])
  pointTo(tables, person.uuid, distinctId, first)
  return first === next.first_page ? next : { ...next, first_page: first }
}

/** Removes every page document of a person's ids (the mappings are the caller's to move). */
export const dropDistinctIdPages = (tables: PersonTables, person: PersonRecord): void => {
  for (let page = person.first_page; page <= person.last_page; page++) if (page !== 0) tables.putPage(person.uuid, page, null)
}
