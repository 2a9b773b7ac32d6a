import t from 'tap'
import { filterOf, findOptionsOf } from '../../src/readstore/mongo-query.js'

t.test('a query with fields asks MongoDB for a projection of their stored paths', async (t) => {
  const options = findOptionsOf({ fields: ['name', 'sharing.enabled', '$browser'], limit: 20, offset: 40 })
  t.same(options?.projection, { name: 1, 'sharing.enabled': 1, '%24browser': 1 })
  t.equal(options?.limit, 20)
  t.equal(options?.skip, 40)
})

t.test('a query without fields reads whole documents, and one with none reads only the id', async (t) => {
  t.notOk('projection' in (findOptionsOf({}) ?? {}))
  t.same(findOptionsOf({ fields: [] })?.projection, { _id: 1 })
})

t.test('the sort follows orderBy, then the id, as the SQLite store orders', async (t) => {
  const options = findOptionsOf({ orderBy: [['pinned', 'desc'], ['list_order', 'asc'], ['pinned', 'asc']] })
  t.same([...(options?.sort as Map<string, number>)], [['pinned', -1], ['list_order', 1], ['_id', 1]])
})

t.test('a zero limit asks for nothing, and a negative one for no limit', async (t) => {
  t.equal(findOptionsOf({ limit: 0 }), null)
  t.notOk('limit' in (findOptionsOf({ limit: -1 }) ?? {}))
})

t.test('contains becomes equality on the array field, which MongoDB matches against each item', async (t) => {
  t.same(filterOf({ where: { environment_id: 3, deleted: false }, contains: { tags: 'growth' } }), { environment_id: 3, deleted: false, tags: 'growth' })
})

t.test('bounds, lists and a keyset cursor become MongoDB operators', async (t) => {
  t.same(filterOf({ where: { environment_id: 3 }, range: { timestamp: { gte: '2024-01-01', lt: '2024-02-01' } }, oneOf: { event: ['a', 'b'] } }), {
    environment_id: 3, timestamp: { $gte: '2024-01-01', $lt: '2024-02-01' }, event: { $in: ['a', 'b'] },
  })
  t.same(filterOf({ orderBy: [['timestamp', 'asc'], ['uuid', 'asc']], after: ['2024-01-05', 'x'] }), {
    $or: [{ timestamp: { $gt: '2024-01-05' } }, { timestamp: '2024-01-05', uuid: { $gt: 'x' } }],
  })
  t.same(filterOf({ where: { n: 1 }, range: { n: { gt: 0 } } }), { $and: [{ n: 1 }, { n: { $gt: 0 } }] }, 'one field twice: each clause on its own')
  t.throws(() => filterOf({ orderBy: [['timestamp', 'desc']], after: ['x'] }), TypeError)
})
