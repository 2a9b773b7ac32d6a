import t from 'tap'
import { personPropertiesNow } from '../../src/persons/read.js'
import type { ReadModels } from '../../src/readstore/read-models.js'

/** Read models whose kept documents the test lists; a document not listed would have to be read. */
const keeping = (kept: Record<string, unknown>) =>
  ({ peek: (collection: string, id: string) => (Object.hasOwn(kept, `${collection}/${id}`) ? kept[`${collection}/${id}`] : undefined) }) as unknown as ReadModels

t.test('a person\'s properties without a read when both documents are kept, undefined when either must be read', async (t) => {
  const mapping = { 'person_distinct_ids/7:ada': { person_id: 'p1' } }
  t.equal(personPropertiesNow(keeping({}), 7, 'ada'), undefined, 'the distinct id must be read')
  t.equal(personPropertiesNow(keeping({ 'person_distinct_ids/7:ada': null }), 7, 'ada'), null, 'a distinct id known to have no person')
  t.equal(personPropertiesNow(keeping(mapping), 7, 'ada'), undefined, 'the person must be read')
  t.same(personPropertiesNow(keeping({ ...mapping, 'persons/7:p1': { properties: { plan: 'pro' } } }), 7, 'ada'), { plan: 'pro' })
  t.equal(personPropertiesNow(keeping({ ...mapping, 'persons/7:p1': null }), 7, 'ada'), null, 'a person since deleted')
})
