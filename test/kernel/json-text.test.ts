import t from 'tap'
import { JsonObjectText, jsonText } from '../../src/kernel/json-text.js'

t.test('values are written as JSON.stringify writes them', async (t) => {
  const values: unknown[] = [
    null, true, false, 0, -0, 1.5, -3, 1e21, 1e-7, NaN, Infinity, -Infinity, '', 'plain', 'a "quote"', 'back\\slash', 'line\nbreak',
    '\u0000\u001f', '\u2028\u2029', '✓ é', '😀', '\ud800', 'x\udc00y', {}, [], { a: 1 }, [1, 'two', null], Object.create(null),
    { toJSON: () => 'custom' }, new Date(0), Object.assign(Object.create({ inherited: 1 }), {}), undefined, () => 1, Symbol('s'),
  ]
  values.forEach((value, i) => t.equal(jsonText(value), JSON.stringify(value), `value ${i}`))
})

t.test('an object is written member by member as JSON.stringify writes it, leaving out what it leaves out', async (t) => {
  const json = new JsonObjectText().add('a', 1).add('gone', undefined).text('user', '{"id":1}').text('nobody', null).add('f', () => 1).add('b', 'x')
  t.equal(json.end(), JSON.stringify({ a: 1, gone: undefined, user: { id: 1 }, nobody: null, f: () => 1, b: 'x' }))
  t.equal(new JsonObjectText().add('only', undefined).end(), '{}')
})

t.test('an array member of JSON texts is written as JSON.stringify writes the array', async (t) => {
  const items = [{ a: 1 }, null, 'x']
  t.equal(new JsonObjectText().items('list', items.map((item) => JSON.stringify(item))).add('after', true).end(), JSON.stringify({ list: items, after: true }))
  t.equal(new JsonObjectText().add('before', 1).items('none', []).end(), JSON.stringify({ before: 1, none: [] }))
})
