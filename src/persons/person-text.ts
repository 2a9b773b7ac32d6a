import { FrozenTexts } from '../kernel/frozen-texts.js'
import { personShape } from './person-shape.js'
import { distinctIdsFrom } from './read.js'
import type { DistinctIdPage, PersonRecord } from './records.js'

const written = new FrozenTexts<PersonRecord>()

/**
 * A person as JSON text (`JSON.stringify(personShape(person, ids))`, its ids from the person and
 * the `pages` read for it), written once per kept person and pages.
 */
export const personText = (person: PersonRecord, pages: readonly (DistinctIdPage | null)[]): string =>
  written.text(person, pages, () => JSON.stringify(personShape(person, distinctIdsFrom(person, pages))))
