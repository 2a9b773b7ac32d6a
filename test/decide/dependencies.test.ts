import t from 'tap'
import type { FlagDefinition } from '../../src/decide/definitions.js'
import { evaluate, pick } from './support/evaluate.js'
import { flag } from './support/flags.js'

const always = { properties: [], rollout_percentage: 100 }
const never = { properties: [], rollout_percentage: 0 }
const dependsOn = (target: FlagDefinition | string, value: unknown) => ({
  key: typeof target === 'string' ? target : String(target.id),
  type: 'flag',
  operator: 'flag_evaluates_to',
  value: value as string,
})

t.test('a flag can require another flag to be on, off or a given variant', async (t) => {
  const on = flag('on', { groups: [always] })
  const off = flag('off', { groups: [never] })
  const variant = flag('variant', { groups: [always], multivariate: { variants: [{ key: 'blue', rollout_percentage: 100 }] } })
  const cases: Array<[FlagDefinition, unknown, boolean]> = [
    [on, true, true], [on, false, false], [off, false, true], [off, true, false],
    [variant, true, true], [variant, 'blue', true], [variant, 'red', false], [on, 'true', false], [on, 1, false],
  ]
  for (const [target, expected, result] of cases) {
    const dependant = flag('dependant', { groups: [{ properties: [dependsOn(target, expected)] }] })
    const evaluation = pick(evaluate([dependant, on, off, variant], { distinctId: 'someone' }), 'dependant')
    t.equal(evaluation.value, result, `${target.key} evaluates to ${JSON.stringify(expected)}`)
  }
})

t.test('dependencies are found by id as the server stores them, or by key as local evaluation sends them', async (t) => {
  const base = flag('base', { groups: [always] })
  t.equal(pick(evaluate([flag('by-id', { groups: [{ properties: [dependsOn(base, true)] }] }), base]), 'by-id').value, true)
  t.equal(pick(evaluate([flag('by-key', { groups: [{ properties: [dependsOn('base', true)] }] }), base]), 'by-key').value, true)
})

t.test('a dependency on an inactive flag reads it as false', async (t) => {
  const disabled = flag('disabled', { groups: [always] }, { active: false })
  const result = evaluate([flag('needs-off', { groups: [{ properties: [dependsOn(disabled, false)] }] }), disabled])
  t.equal(pick(result, 'needs-off').value, true)
  t.equal(result.errorsWhileComputingFlags, false)
})

t.test('a missing dependency fails the flag and its dependants, and sets the errors flag', async (t) => {
  const orphan = flag('orphan', { groups: [{ properties: [dependsOn('99999', true)] }] })
  const downstream = flag('downstream', { groups: [{ properties: [dependsOn(orphan, false)] }] })
  const fine = flag('fine', { groups: [always] })
  const result = evaluate([orphan, downstream, fine])
  t.same(pick(result, 'orphan'), { ...pick(result, 'orphan'), value: false, failed: true, payload: null })
  t.same(pick(result, 'orphan').reason, { code: 'missing_dependency', condition_index: null, description: 'Flag cannot be evaluated due to missing dependency' })
  t.equal(pick(result, 'downstream').reason.code, 'missing_dependency')
  t.equal(pick(result, 'fine').value, true, 'other flags are still computed')
  t.equal(result.errorsWhileComputingFlags, true)
})

t.test('flags in a dependency cycle fail instead of looping', async (t) => {
  const a = flag('cycle-a', { groups: [{ properties: [dependsOn('cycle-b', true)] }] })
  const b = flag('cycle-b', { groups: [{ properties: [dependsOn('cycle-a', true)] }] })
  const self = flag('self', { groups: [{ properties: [dependsOn('self', true)] }] })
  const result = evaluate([a, b, self, flag('free', { groups: [always] })])
  t.same(result.flags.map((f) => [f.key, f.value, f.reason.code]), [
    ['cycle-a', false, 'missing_dependency'], ['cycle-b', false, 'missing_dependency'], ['self', false, 'missing_dependency'], ['free', true, 'condition_match'],
  ])
  t.equal(result.errorsWhileComputingFlags, true)
})

t.test('requested flags bring the flags they depend on', async (t) => {
  const base = flag('base', { groups: [always] })
  const top = flag('top', { groups: [{ properties: [dependsOn(base, true)] }] })
  const result = evaluate([top, base, flag('other', { groups: [always] })], { flagKeys: ['top'] })
  t.same(result.flags.map((f) => [f.key, f.value]), [['top', true], ['base', true]])
})

const cohort = (id: number, operator = 'in') => ({ key: 'id', type: 'cohort', value: id, operator })

t.test('dynamic cohorts evaluate their nested property groups against the person', async (t) => {
  const definitions = {
    cohorts: {
      '1': { type: 'OR' as const, values: [
        { type: 'AND' as const, values: [{ key: 'plan', value: 'pro', type: 'person' }, { key: 'email', value: 'test', operator: 'icontains', type: 'person', negation: true }] },
        { type: 'AND' as const, values: [{ key: 'id', type: 'cohort', value: 2 }] },
      ] },
      '2': { filters: { properties: { type: 'AND' as const, values: [{ key: 'age', value: '65', operator: 'gte', type: 'person' }] } } },
    },
    flags: [flag('members', { groups: [{ properties: [cohort(1)] }] }), flag('others', { groups: [{ properties: [cohort(1, 'not_in')] }] })],
  }
  const run = (personProperties: Record<string, unknown>) => evaluate(definitions, { personProperties }).flags.map((f) => f.value)
  t.same(run({ plan: 'pro', email: 'a@b.c' }), [true, false])
  t.same(run({ plan: 'pro', email: 'a@test.io' }), [false, true], 'a negated filter excludes')
  t.same(run({ plan: 'free', age: 70 }), [true, false], 'a cohort can include another cohort')
  t.same(run({}), [false, true])
})

t.test('static cohorts read membership from the request', async (t) => {
  const definitions = { cohorts: { '5': { is_static: true as const } }, flags: [flag('static', { groups: [{ properties: [cohort(5)] }] })] }
  t.equal(pick(evaluate(definitions, { staticCohortIds: new Set(['5']) }), 'static').value, true)
  t.equal(pick(evaluate(definitions), 'static').value, false)
})

t.test('an unknown or cyclic cohort fails the flag when it is reached', async (t) => {
  const definitions = {
    cohorts: { '3': { type: 'AND' as const, values: [{ key: 'id', type: 'cohort', value: 4 }] }, '4': { type: 'AND' as const, values: [{ key: 'id', type: 'cohort', value: 3 }] } },
    flags: [
      flag('unknown', { groups: [{ properties: [cohort(404)] }] }),
      flag('cyclic', { groups: [{ properties: [cohort(3)] }] }),
      flag('guarded', { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }, cohort(404)] }] }),
    ],
  }
  const result = evaluate(definitions, { personProperties: { plan: 'free' } })
  t.same(result.flags.map((f) => [f.key, f.reason.code, f.failed]), [
    ['unknown', 'missing_dependency', true], ['cyclic', 'missing_dependency', true], ['guarded', 'no_condition_match', false],
  ])
  t.equal(result.errorsWhileComputingFlags, true)
  t.equal(evaluate({ ...definitions, flags: [definitions.flags[2]!] }, { personProperties: { plan: 'free' } }).errorsWhileComputingFlags, false, 'a cohort never reached is no error')
})
