import { FrozenTexts } from '../kernel/frozen-texts.js'
import { personShape } from './person-shape.js'
import type { PersonRecord } from './records.js'

const written = new FrozenTexts<PersonRecord>()

/** A person as JSON text (`JSON.stringify(personShape(person))`), written once per kept person. */
export const personText = (person: PersonRecord): string => written.text(person, [], () => JSON.stringify(personShape(person)))
