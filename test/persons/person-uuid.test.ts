import t from 'tap'
import { personUuid, uuidV5 } from '../../src/persons/person-uuid.js'

t.test('UUIDv5 matches the RFC example', async (t) => {
  t.equal(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '2ed6657d-e927-568b-95e1-2665a8aea6a2')
})

t.test('a person UUID depends on the environment and the distinct id only', async (t) => {
  t.equal(personUuid(1, 'user'), personUuid(1, 'user'))
  t.not(personUuid(1, 'user'), personUuid(2, 'user'))
  t.match(personUuid(1, 'user'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
})
