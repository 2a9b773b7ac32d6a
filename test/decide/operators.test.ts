import t from 'tap'
import { matches } from './support/match.js'

t.test('exact compares string forms case-insensitively and accepts any member of a list', async (t) => {
  const filter = { value: 'value' }
  t.ok(matches(filter, { key: 'value' }))
  t.ok(matches(filter, { key: 'VALUE' }))
  t.notOk(matches(filter, { key: 'value2' }))
  t.notOk(matches(filter, { key: '' }))
  t.notOk(matches(filter, {}), 'a missing property is no match')
  const list = { value: ['value1', 'value2', 'value3'], operator: 'exact' }
  t.ok(matches(list, { key: 'value2' }))
  t.notOk(matches(list, { key: 'value4' }))
  t.ok(matches({ value: ['US', 'CA'] }, { key: 'us' }), 'list members are lower-cased too')
  t.notOk(matches({ value: [] }, { key: 'us' }))
  t.ok(matches({ value: 5 }, { key: '5' }), 'numbers compare by their JSON text')
  t.ok(matches({ value: '5' }, { key: 5 }))
})

t.test('exact with a boolean-like value compares truthiness', async (t) => {
  t.ok(matches({ value: true }, { key: 'TRUE' }))
  t.ok(matches({ value: 'true' }, { key: true }))
  t.ok(matches({ value: false }, { key: 'no' }), 'anything but true or "true" reads as false')
  t.notOk(matches({ value: 'False' }, { key: true }))
  t.ok(matches({ value: ['true', 'TRUE'] }, { key: true }), 'a list of boolean-likes is truthy only if all are')
  t.notOk(matches({ value: ['true', 'false'] }, { key: true }))
})

t.test('is_not inverts exact and matches a missing property', async (t) => {
  const filter = { value: 'value', operator: 'is_not' }
  t.ok(matches(filter, { key: 'value2' }))
  t.ok(matches(filter, { key: '' }))
  t.ok(matches(filter, { key: null }))
  t.notOk(matches(filter, { key: 'Value' }))
  t.ok(matches(filter, {}))
  t.notOk(matches({ value: ['a', 'b'], operator: 'is_not' }, { key: 'B' }))
})

t.test('is_set and is_not_set look only at presence, null included', async (t) => {
  t.ok(matches({ operator: 'is_set', value: 'is_set' }, { key: null }))
  t.ok(matches({ operator: 'is_set' }, { key: '' }))
  t.notOk(matches({ operator: 'is_set' }, { other: 1 }))
  t.ok(matches({ operator: 'is_not_set' }, { other: 1 }))
  t.notOk(matches({ operator: 'is_not_set' }, { key: null }))
  t.notOk(matches({ operator: 'is_set' }, Object.create({ key: 1 }) as Record<string, unknown>), 'inherited keys are not properties')
  t.notOk(matches({ key: 'constructor', operator: 'is_set' }, {}))
})

t.test('a filter without a value never matches a value operator', async (t) => {
  t.notOk(matches({ operator: 'exact' }, { key: 'x' }))
  t.notOk(matches({ operator: 'is_not', value: null }, {}))
})

t.test('icontains is an ASCII case-insensitive substring test of the string form', async (t) => {
  const filter = { value: 'valUe', operator: 'icontains' }
  t.ok(matches(filter, { key: '343tfvalue5' }))
  t.ok(matches(filter, { key: 'vaLue4' }))
  t.notOk(matches(filter, { key: 'Alakazam' }))
  t.notOk(matches(filter, { key: 123 }))
  t.ok(matches({ value: '3', operator: 'icontains' }, { key: 323 }))
  t.notOk(matches(filter, {}))
  t.notOk(matches({ value: 'é', operator: 'icontains' }, { key: 'É' }), 'only ASCII letters fold')
  t.ok(matches({ value: 'x', operator: 'not_icontains' }, {}))
  t.notOk(matches({ value: 'X', operator: 'not_icontains' }, { key: 'box' }))
})

t.test('prefix, suffix and any-of-substrings operators', async (t) => {
  t.ok(matches({ value: 'Val', operator: 'starts_with' }, { key: 'value' }))
  t.notOk(matches({ value: 'lue', operator: 'starts_with' }, { key: 'value' }))
  t.ok(matches({ value: 'LUE', operator: 'ends_with' }, { key: 'value' }))
  t.ok(matches({ value: 'x', operator: 'not_ends_with' }, {}))
  t.ok(matches({ value: 'x', operator: 'not_starts_with' }, { key: 'yx' }))
  t.ok(matches({ value: ['foo', 'ALU'], operator: 'icontains_multi' }, { key: 'value' }))
  t.ok(matches({ value: ['foo', 'bar'], operator: 'not_icontains_multi' }, { key: 'value' }))
})

t.test('regex searches unanchored; an invalid pattern fails both regex and not_regex', async (t) => {
  t.ok(matches({ value: '\\.com$', operator: 'regex' }, { key: 'value.com' }))
  t.notOk(matches({ value: '\\.com$', operator: 'regex' }, { key: '.com343tfvalue5' }))
  t.ok(matches({ value: 4, operator: 'regex' }, { key: 4 }), 'numbers are matched through their text')
  t.ok(matches({ value: '4', operator: 'regex' }, { key: '4' }))
  t.notOk(matches({ value: '?*', operator: 'regex' }, { key: 'value' }))
  t.notOk(matches({ value: '?*', operator: 'not_regex' }, { key: 'value' }))
  t.ok(matches({ value: 'a', operator: 'not_regex' }, {}), 'not_regex matches a missing property')
  t.ok(matches({ value: '\\.com$', operator: 'not_regex' }, { key: 'valuecom' }))
  t.ok(matches({ value: '(?i)^VALUE', operator: 'regex' }, { key: 'value' }), 'a leading inline flag group is honoured')
  t.ok(matches({ value: '^a\\-b$', operator: 'regex' }, { key: 'a-b' }), 'escapes the server accepts work')
})

t.test('gt, gte, lt and lte compare numerically and fail on anything that is not a number', async (t) => {
  t.ok(matches({ value: '1', operator: 'gt' }, { key: 2 }))
  t.ok(matches({ value: 1, operator: 'gt' }, { key: '23' }))
  t.notOk(matches({ value: '1', operator: 'gt' }, { key: -1 }))
  t.ok(matches({ value: '1', operator: 'gte' }, { key: '1' }))
  t.notOk(matches({ value: '1', operator: 'lt' }, { key: '1' }))
  t.ok(matches({ value: '43', operator: 'lte' }, { key: '42' }))
  t.notOk(matches({ value: '43', operator: 'lte' }, { key: 44 }))
  t.notOk(matches({ value: '30', operator: 'lt' }, { key: '100' }), 'strings are compared as numbers, not text')
  t.notOk(matches({ value: '123aloha', operator: 'gt' }, { key: 129 }), 'a non-numeric filter never matches')
  t.notOk(matches({ value: '10', operator: 'gt' }, { key: '11 ' }), 'no surrounding spaces, as Rust parses')
  t.notOk(matches({ value: '10', operator: 'gt' }, { key: true }))
  t.ok(matches({ value: '10', operator: 'gt' }, { key: '1e3' }))
  t.ok(matches({ value: '10', operator: 'gt' }, { key: 'inf' }))
  t.notOk(matches({ value: '10', operator: 'gt' }, {}))
})

t.test('between is inclusive and not_between is its complement', async (t) => {
  t.ok(matches({ value: [1, 5], operator: 'between' }, { key: 5 }))
  t.notOk(matches({ value: [1, 5], operator: 'between' }, { key: '6' }))
  t.ok(matches({ value: [1, 5], operator: 'not_between' }, { key: 6 }))
  t.ok(matches({ value: [1, 5], operator: 'not_between' }, {}))
  t.notOk(matches({ value: [5, 1], operator: 'between' }, { key: 3 }), 'reversed bounds are invalid')
  t.notOk(matches({ value: [1, 5], operator: 'not_between' }, { key: 'nan' }))
})

t.test('unknown operators and cohort-only operators never match a property', async (t) => {
  t.notOk(matches({ value: 'x', operator: 'bogus' }, { key: 'x' }))
  t.notOk(matches({ value: 'x', operator: 'in' }, { key: 'x' }))
})
