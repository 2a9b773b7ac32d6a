import t from 'tap'
import { MongoNetworkError, MongoServerError } from 'mongodb'
import { documentRefusal, nestingDepth, refusalOf, refusedIndex } from '../../src/readstore/mongo-refusal.js'

const nested = (levels: number): object => {
  let doc: object = { leaf: 1 }
  for (let i = 1; i < levels; i++) doc = { a: doc }
  return doc
}

t.test('a document MongoDB could never hold is named before any write', async (t) => {
  t.equal(nestingDepth(nested(100)), 100)
  t.equal(documentRefusal(nested(100)), null, '100 levels fit')
  t.match(documentRefusal(nested(101)), /nested 101 levels deep; MongoDB holds at most 100/)
  t.equal(nestingDepth(nested(100_000)), 100_000, 'counting never overflows the stack')
  t.match(documentRefusal({ big: 'x'.repeat(17 * 1024 * 1024) }), /bytes as BSON; MongoDB holds at most 16777216/)
  t.equal(documentRefusal({ fine: 'x'.repeat(1024) }), null)
})

t.test('the server\'s refusals of a document are told apart from everything that may pass', async (t) => {
  const tooLarge = new MongoServerError({ message: 'object to insert too large', code: 10334 })
  t.equal(refusalOf(tooLarge), 'object to insert too large')
  const tooDeep = new MongoServerError({ message: 'BSONObj exceeds maximum nested object depth: 180', code: 15 })
  t.match(refusalOf(tooDeep), /maximum nested object depth/)
  const bulk = Object.assign(new Error('bulk write failed'), { writeErrors: [{ index: 3, code: 17419, errmsg: 'Resulting document after update is larger than 16777216' }] })
  t.match(refusalOf(bulk), /larger than 16777216/)
  t.equal(refusedIndex(bulk), 3, 'the operation at fault within the bulk write')
  t.match(refusalOf(new MongoServerError({ message: 'Document failed validation', code: 121 })), /failed validation/, 'a validator\'s refusal')
  t.match(refusalOf(new MongoServerError({ message: 'key too large to index', code: 17280 })), /key too large/, 'an index key over the limit')
  t.match(refusalOf(new RangeError('Maximum call stack size exceeded')), /too deeply nested/)
  t.equal(refusalOf(new MongoNetworkError('connection reset')), null, 'a lost connection is not a refusal')
  t.equal(refusalOf(new MongoServerError({ message: 'WriteConflict', code: 112 })), null, 'a write conflict is not a refusal')
  t.equal(refusalOf(new MongoServerError({ message: 'bad value', code: 2 })), null, 'BadValue without a size or depth message is not a refusal')
})
