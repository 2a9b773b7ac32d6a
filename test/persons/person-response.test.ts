import t from 'tap'
import { jsonWriter } from '../../src/http/json-writer.js'
import { deepFreeze } from '../../src/kernel/deep-freeze.js'
import { PersonResponse, personShape, personShapeOf } from '../../src/persons/person-shape.js'
import type { DistinctIdPage, PersonRecord } from '../../src/persons/records.js'

const UUID = 'af061de7-58aa-50ee-8f2c-8010440c77ef'
const ANON = '0190d2c1-aaaa-7bbb-8ccc-123456789abc'
const person = (overrides: Partial<PersonRecord> = {}): PersonRecord => ({
  id: 4, environment_id: 1, uuid: UUID, created_at: '2024-01-01T00:00:00.5Z', is_identified: true,
  distinct_ids: [ANON, 'ada'], first_page: 0, last_page: 0,
  properties: { email: 'ada@example.com', nested: { a: [1, '"two"'] }, '\u2028': '✓' },
  ...overrides,
} as PersonRecord)
const page = (...ids: string[]): DistinctIdPage => ({ environment_id: 1, person_id: UUID, ids })
const write = jsonWriter(PersonResponse)

t.test('a person is written in the order of its shape, as JSON.stringify writes it, kept or not, with the ids of its pages', async (t) => {
  const cases: [PersonRecord, (DistinctIdPage | null)[], string[]][] = [
    [person(), [], [ANON, 'ada']],
    [person({ properties: {}, distinct_ids: [] }), [], []],
    [person({ properties: { name: 0, Name: 'Second' } }), [], [ANON, 'ada']],
    [person({ distinct_ids: [ANON], last_page: 2 }), [null, page('grace'), page('ada')], [ANON, 'grace', 'ada']],
    [person({ distinct_ids: ['ada'], first_page: -1, last_page: 1 }), [page('grace'), null, null], ['grace', 'ada']],
  ]
  for (const [value, pages, ids] of cases) {
    const expected = JSON.stringify(personShape(value, ids))
    t.equal(write(personShapeOf(value, pages)), expected)
    const frozen = deepFreeze(structuredClone(value))
    const frozenPages = deepFreeze(structuredClone(pages))
    t.equal(write(personShapeOf(frozen, frozenPages)), expected)
    t.equal(write(personShapeOf(frozen, frozenPages)), expected, 'again')
  }
  t.match(JSON.parse(write(personShapeOf(person({ properties: {}, distinct_ids: [ANON], last_page: 1 }), [null, page('ada')]))), {
    name: 'ada', distinct_ids: ['ada', ANON],
  }, 'ids from the person and its pages, identified-looking ones listed first')
})

t.test('each kept person is shown with its own pages', async (t) => {
  const changed = deepFreeze(person({ properties: { email: 'grace@example.com' } }))
  t.match(write(personShapeOf(changed, [])), 'grace@example.com', 'another document is written anew')
  const kept = deepFreeze(person({ distinct_ids: [], last_page: 1 }))
  t.match(write(personShapeOf(kept, deepFreeze([null, page('ada')]))), '"distinct_ids":["ada"]')
  t.match(write(personShapeOf(kept, deepFreeze([null, page('grace')]))), '"distinct_ids":["grace"]', 'the same person with other pages is written anew')
})
