import t from 'tap'
import { deepFreeze } from '../../src/kernel/deep-freeze.js'
import { personShape } from '../../src/persons/person-shape.js'
import { personText } from '../../src/persons/person-text.js'
import type { PersonRecord } from '../../src/persons/records.js'

const person = (overrides: Partial<PersonRecord> = {}): PersonRecord => ({
  id: 4, environment_id: 1, uuid: 'af061de7-58aa-50ee-8f2c-8010440c77ef', created_at: '2024-01-01T00:00:00.5Z', is_identified: true,
  distinct_ids: ['0190d2c1-aaaa-7bbb-8ccc-123456789abc', 'ada'], properties: { email: 'ada@example.com', nested: { a: [1, '"two"'] }, '\u2028': '✓' },
  ...overrides,
} as PersonRecord)

t.test('a person\'s text is JSON.stringify of its shape, frozen or not, and each kept person has its own', async (t) => {
  for (const value of [person(), person({ properties: {}, distinct_ids: [] }), person({ properties: { name: 0, Name: 'Second' } })]) {
    const expected = JSON.stringify(personShape(value))
    t.equal(personText(value), expected)
    const frozen = deepFreeze(structuredClone(value))
    t.equal(personText(frozen), expected)
    t.equal(personText(frozen), expected, 'again')
  }
  const changed = deepFreeze(person({ properties: { email: 'grace@example.com' } }))
  t.match(personText(changed), 'grace@example.com', 'another document is written anew')
})
