import t from 'tap'
import { flagHash, holdoutHash } from '../../src/decide/hash.js'
import { evaluate, pick } from './support/evaluate.js'
import { flag } from './support/flags.js'

const always = { properties: [], rollout_percentage: 100 }
const person = (key: string, value: unknown, operator = 'exact') => ({ key, value: value as string, operator, type: 'person' })

t.test('the first matching condition wins and reports its original index', async (t) => {
  const f = flag('f', { groups: [{ properties: [person('plan', 'free')] }, { properties: [person('plan', 'pro')] }] })
  const result = pick(evaluate([f], { personProperties: { plan: 'pro' } }), 'f')
  t.equal(result.value, true)
  t.same(result.reason, { code: 'condition_match', condition_index: 1, description: 'Matched condition set 2' })
  t.equal(result.failed, false)
})

t.test('without a match the highest failure reason is reported', async (t) => {
  const noMatch = flag('a', { groups: [{ properties: [person('plan', 'free')] }, { properties: [person('plan', 'team')] }] })
  t.same(pick(evaluate([noMatch]), 'a').reason, { code: 'no_condition_match', condition_index: 1, description: 'No matching condition set' })
  const outOfRollout = flag('b', { groups: [{ properties: [], rollout_percentage: 0 }, { properties: [person('plan', 'free')] }] })
  const result = pick(evaluate([outOfRollout], { distinctId: 'someone' }), 'b')
  t.equal(result.value, false)
  t.same(result.reason, { code: 'out_of_rollout_bound', condition_index: 0, description: 'Out of rollout bound' })
  t.same(pick(evaluate([flag('c', { groups: [] })]), 'c').reason, { code: 'no_condition_match', condition_index: null, description: 'No matching condition set' })
})

t.test('rollout compares the SHA-1 bucket of "<key>.<distinct id>" with the percentage', async (t) => {
  const ids = Array.from({ length: 200 }, (_, i) => `id-${i}`)
  const f = flag('half', { groups: [{ properties: [], rollout_percentage: 50 }] })
  for (const distinctId of ids) {
    const expected = flagHash('half', distinctId, '') <= 0.5
    t.equal(pick(evaluate([f], { distinctId }), 'half').value, expected)
  }
})

t.test('variants come from the variant hash; a named variant that exists overrides it', async (t) => {
  const variants = { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] }
  const computed = flag('mv', { groups: [always], multivariate: variants })
  const distinctId = 'user-9'
  const expected = flagHash('mv', distinctId, 'variant') < 0.5 ? 'control' : 'test'
  t.equal(pick(evaluate([computed], { distinctId }), 'mv').value, expected)

  const overridden = flag('mv2', {
    groups: [{ properties: [person('plan', 'pro')] }, { properties: [person('plan', 'pro')], variant: 'test' }],
    multivariate: variants,
  })
  const result = pick(evaluate([overridden], { personProperties: { plan: 'pro' } }), 'mv2')
  t.equal(result.value, 'test', 'conditions naming a variant are tried first')
  t.equal(result.reason.condition_index, 1)
  const unknown = flag('mv3', { groups: [{ properties: [], variant: 'nope' }], multivariate: variants })
  t.equal(pick(evaluate([unknown], { distinctId }), 'mv3').value, flagHash('mv3', distinctId, 'variant') < 0.5 ? 'control' : 'test', 'an unknown variant name falls back to the hash')
  const short = flag('short', { groups: [always], multivariate: { variants: [{ key: 'only', rollout_percentage: 0 }] } })
  t.equal(pick(evaluate([short]), 'short').value, true, 'no variant bucket left means plain true')
})

t.test('payloads follow the matched value and are always strings', async (t) => {
  const boolean = flag('b', { groups: [always], payloads: { true: '{"a": 1}' } })
  t.equal(pick(evaluate([boolean]), 'b').payload, '{"a": 1}')
  const objects = flag('o', { groups: [always], payloads: { true: { nested: [1, 2] } } })
  t.equal(pick(evaluate([objects]), 'o').payload, '{"nested":[1,2]}')
  const off = flag('off', { groups: [{ properties: [], rollout_percentage: 0 }], payloads: { true: '1' } })
  t.equal(pick(evaluate([off], { distinctId: 'x' }), 'off').payload, null)
  const variant = flag('v', { groups: [{ properties: [], variant: 'blue' }], multivariate: { variants: [{ key: 'blue', rollout_percentage: 100 }] }, payloads: { blue: '"sky"' } })
  t.equal(pick(evaluate([variant]), 'v').payload, '"sky"')
})

t.test('group flags hash the group key and match the group\'s properties', async (t) => {
  const definitions = {
    group_type_mapping: { '0': 'company', '1': 'team' },
    flags: [flag('g', { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: 0 }], rollout_percentage: 50 }] })],
  }
  const groupProperties = { company: { tier: 'gold' } }
  const inBucket = Array.from({ length: 40 }, (_, i) => `co-${i}`).find((key) => flagHash('g', key, '') <= 0.5)!
  const forA = pick(evaluate(definitions, { distinctId: 'a', groups: { company: inBucket }, groupProperties }), 'g')
  const forB = pick(evaluate(definitions, { distinctId: 'b', groups: { company: inBucket }, groupProperties }), 'g')
  t.equal(forA.value, true)
  t.equal(forB.value, true, 'every member of the group gets the same answer')
  t.equal(pick(evaluate(definitions, { groups: { company: inBucket }, personProperties: { tier: 'gold' } }), 'g').value, false, 'person properties are not group properties')
  t.same(pick(evaluate(definitions), 'g').reason, { code: 'no_group_type', condition_index: null, description: 'No group type' })
  t.equal(pick(evaluate(definitions, { groups: { company: { id: 1 } } }), 'g').reason.code, 'no_group_type', 'a non-string, non-number key is no key')
  const numeric = pick(evaluate({ ...definitions, flags: [flag('n', { aggregation_group_type_index: 0, groups: [always] })] }, { groups: { company: 42 } }), 'n')
  t.equal(numeric.value, true, 'a numeric group key is used as its text')
  const unmapped = pick(evaluate({ flags: [flag('u', { aggregation_group_type_index: 3, groups: [always] })] }, { groups: { company: 'x' } }), 'u')
  t.equal(unmapped.reason.code, 'no_group_type', 'an index without a group type is no group type')
})

t.test('an empty distinct id evaluates person flags to false', async (t) => {
  t.same(pick(evaluate([flag('p', { groups: [always] })], { distinctId: '' }), 'p').reason.code, 'no_group_type')
})

t.test('a hash key override replaces the distinct id for rollout and variants', async (t) => {
  const f = flag('cont', { groups: [{ properties: [], rollout_percentage: 50 }], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] } }, { ensure_experience_continuity: true })
  for (const anon of ['anon-1', 'anon-2', 'anon-3', 'anon-4']) {
    const viaOverride = pick(evaluate([f], { distinctId: 'identified', hashKeyOverrides: { cont: anon } }), 'cont')
    const asAnon = pick(evaluate([f], { distinctId: anon }), 'cont')
    t.equal(viaOverride.value, asAnon.value)
  }
})

t.test('inactive and deleted flags are not evaluated; results keep definition order', async (t) => {
  const result = evaluate([flag('z', { groups: [always] }), flag('off', { groups: [always] }, { active: false }), flag('gone', { groups: [always] }, { deleted: true }), flag('a', { groups: [always] })])
  t.same(result.flags.map((f) => f.key), ['z', 'a'])
  t.equal(result.errorsWhileComputingFlags, false)
})

t.test('flag_keys_to_evaluate limits the flags evaluated', async (t) => {
  const result = evaluate([flag('one', { groups: [always] }), flag('two', { groups: [always] })], { flagKeys: ['two', 'unknown'] })
  t.same(result.flags.map((f) => f.key), ['two'])
})

t.test('flag keys that name Object members are ordinary keys', async (t) => {
  const result = evaluate([flag('__proto__', { groups: [always] }), flag('constructor', { groups: [always] })], { hashKeyOverrides: {} })
  t.same(result.flags.map((f) => [f.key, f.value]), [['__proto__', true], ['constructor', true]])
})

t.test('a super condition decides alone once its property is present', async (t) => {
  const f = flag('early', {
    groups: [always],
    super_groups: [{ properties: [person('$feature_enrollment/early', true)], rollout_percentage: 100 }],
    payloads: { true: '"p"' },
  })
  const enrolled = pick(evaluate([f], { personProperties: { '$feature_enrollment/early': true } }), 'early')
  t.same([enrolled.value, enrolled.payload, enrolled.reason], [true, '"p"', { code: 'super_condition_value', condition_index: 0, description: 'Super condition value' }])
  const optedOut = pick(evaluate([f], { personProperties: { '$feature_enrollment/early': false } }), 'early')
  t.same([optedOut.value, optedOut.reason.code], [false, 'super_condition_value'])
  t.same(pick(evaluate([f]), 'early').reason.code, 'condition_match', 'without the property the usual conditions apply')
})

t.test('a holdout takes the people in its bucket before any condition', async (t) => {
  const f = flag('exp', {
    groups: [always],
    multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
    holdout_groups: [{ properties: [], rollout_percentage: 10, variant: 'holdout-7' }],
  })
  const ids = Array.from({ length: 300 }, (_, i) => `p-${i}`)
  const results = ids.map((distinctId) => pick(evaluate([f], { distinctId }), 'exp'))
  const held = results.filter((r) => r.reason.code === 'holdout_condition_value')
  const expected = ids.filter((id) => holdoutHash(id) <= 0.1)
  t.same(ids.filter((_, i) => results[i]!.reason.code === 'holdout_condition_value'), expected, 'membership is the "holdout-<id>" bucket')
  t.ok(expected.length > 10, `some people are held out (${expected.length})`)
  t.ok(held.every((r) => r.value === 'holdout-7' && r.reason.condition_index === null))
  t.ok(results.filter((r) => r.reason.code !== 'holdout_condition_value').every((r) => r.value === 'control' || r.value === 'test'))
})
