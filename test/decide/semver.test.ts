import t from 'tap'
import { parseVersion } from '../../src/decide/semver.js'
import { matches } from './support/match.js'

t.test('versions parse leniently: v prefix, missing parts, suffixes and extra parts', async (t) => {
  t.same(parseVersion('1.2.3'), [1, 2, 3])
  t.same(parseVersion(' v1.2 '), [1, 2, 0])
  t.same(parseVersion('V3'), [3, 0, 0])
  t.same(parseVersion('1.2.3-beta.1+build.7'), [1, 2, 3])
  t.same(parseVersion('1.2.3.4'), [1, 2, 3])
  t.same(parseVersion(1.5), [1, 5, 0])
  t.equal(parseVersion('1.02.3'), null, 'no leading zeros')
  t.equal(parseVersion('1.x'), null)
  t.equal(parseVersion(''), null)
})

t.test('comparison operators order versions numerically', async (t) => {
  t.ok(matches({ value: '1.2.3', operator: 'semver_eq' }, { key: 'v1.2.3-rc.1' }))
  t.ok(matches({ value: '1.2', operator: 'semver_neq' }, { key: '1.2.1' }))
  t.ok(matches({ value: '1.9.0', operator: 'semver_gt' }, { key: '1.10.0' }))
  t.ok(matches({ value: '2.0.0', operator: 'semver_lt' }, { key: '1.99.99' }))
  t.ok(matches({ value: '2.0.0', operator: 'semver_gte' }, { key: '2' }))
  t.notOk(matches({ value: '2.0.0', operator: 'semver_lte' }, { key: '2.0.1' }))
  t.notOk(matches({ value: '1.0.0', operator: 'semver_gt' }, { key: 'banana' }), 'an unparseable property is no match')
  t.notOk(matches({ value: 'banana', operator: 'semver_neq' }, { key: '1.0.0' }), 'an unparseable filter is no match')
  t.notOk(matches({ value: '1.0.0', operator: 'semver_neq' }, {}))
})

t.test('tilde, caret and wildcard ranges', async (t) => {
  const tilde = { value: '1.2.3', operator: 'semver_tilde' }
  t.ok(matches(tilde, { key: '1.2.9' }))
  t.notOk(matches(tilde, { key: '1.3.0' }))
  t.notOk(matches(tilde, { key: '1.2.2' }))
  t.ok(matches({ value: '1.2.3', operator: 'semver_caret' }, { key: '1.9.0' }))
  t.notOk(matches({ value: '1.2.3', operator: 'semver_caret' }, { key: '2.0.0' }))
  t.ok(matches({ value: '0.2.3', operator: 'semver_caret' }, { key: '0.2.9' }))
  t.notOk(matches({ value: '0.2.3', operator: 'semver_caret' }, { key: '0.3.0' }))
  t.ok(matches({ value: '0.0.3', operator: 'semver_caret' }, { key: '0.0.3' }))
  t.notOk(matches({ value: '0.0.3', operator: 'semver_caret' }, { key: '0.0.4' }))
  t.ok(matches({ value: '1.*', operator: 'semver_wildcard' }, { key: '1.99.0' }))
  t.notOk(matches({ value: '1.*', operator: 'semver_wildcard' }, { key: '2.0.0' }))
  t.ok(matches({ value: '1.2.*', operator: 'semver_wildcard' }, { key: '1.2.7' }))
  t.notOk(matches({ value: '1.2.*', operator: 'semver_wildcard' }, { key: '1.3.0' }))
  t.notOk(matches({ value: '1.*.3', operator: 'semver_wildcard' }, { key: '1.0.3' }), 'a malformed wildcard is no match')
})
