import t from 'tap'
import { isIllegalDistinctId } from '../../src/persons/illegal-ids.js'

t.test('empty and blank ids are illegal', async (t) => {
  for (const id of ['', ' ', '\t\n']) t.equal(isIllegalDistinctId(id), true, JSON.stringify(id))
})

t.test('generic words are illegal in any case, and quoted', async (t) => {
  for (const id of ['anonymous', 'GUEST', 'DistinctId', 'distinct_id', 'ID', 'not_authenticated', 'Email', 'UNDEFINED', 'True', 'false', '"guest"', "'null'", '\'Anonymous\'']) {
    t.equal(isIllegalDistinctId(id), true, id)
  }
})

t.test('some ids are illegal only as written', async (t) => {
  for (const id of ['[object Object]', 'NaN', 'None', 'none', 'null', '0', '"NaN"', "'0'"]) t.equal(isIllegalDistinctId(id), true, id)
  for (const id of ['nan', 'NULL', 'Null', '00', 'user-1', 'guest1']) t.equal(isIllegalDistinctId(id), false, id)
})
