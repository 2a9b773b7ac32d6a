import t from 'tap'
import { compileFlags } from '../../src/decide/compile.js'
import type { FlagDefinitionSet } from '../../src/decide/definitions.js'
import { evaluateFlags, pickProperties } from '../../src/decide/evaluate.js'
import { differentialDefinitions, randomCase } from './support/differential-flags.js'
import { flag, seededRandom } from './support/flags.js'

const person = (key: string, value: string, operator = 'exact') => ({ key, value, operator, type: 'person' })

t.test('a compiled set lists the property keys of its conditions, super conditions and cohorts, and no flag dependency', async (t) => {
  const definitions: FlagDefinitionSet = {
    cohorts: {
      '1': { type: 'AND', values: [person('in-cohort', 'x'), { type: 'OR', values: [person('nested-in-cohort', 'y')] }, { key: 'id', type: 'cohort', value: 2 }] },
      '2': { filters: { properties: { type: 'AND', values: [person('in-referenced-cohort', 'z')] } } },
      '3': { type: 'AND', values: [person('in-unused-cohort', 'w')] },
    },
    flags: [
      flag('plain', { groups: [{ properties: [person('plan', 'pro'), { key: 'id', type: 'cohort', value: 1 }] }, { properties: [person('tier', 'gold', 'is_set')] }] }),
      flag('early', { groups: [], super_groups: [{ properties: [person('$feature_enrollment/early', 'true')] }] }),
      flag('dependent', { groups: [{ properties: [{ key: 'plain', type: 'flag', value: true, operator: 'flag_evaluates_to' }] }] }),
      flag('company', { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'industry', value: 'tech', operator: 'exact', type: 'group', group_type_index: 0 }] }] }),
    ],
  }
  const keys = [...compileFlags(definitions).propertyKeys].sort()
  t.same(keys, ['$feature_enrollment/early', 'in-cohort', 'in-referenced-cohort', 'industry', 'nested-in-cohort', 'plan', 'tier'])
})

t.test('picked properties take each read key from the last layer that holds it, and nothing else', async (t) => {
  const stored = { plan: 'free', kept: 1, unread: 'a' }
  const located = { $geoip_country_code: 'NZ', plan: 'geo' }
  const asked = JSON.parse('{"plan":"pro","__proto__":"own","nothing":null}') as Record<string, unknown>
  const picked = pickProperties(['plan', 'kept', '$geoip_country_code', '__proto__', 'nothing', 'absent'], stored, null, located, undefined, asked)
  t.same(Object.entries(picked), [['plan', 'pro'], ['kept', 1], ['$geoip_country_code', 'NZ'], ['__proto__', 'own'], ['nothing', null]])
  t.equal(Object.getPrototypeOf(picked), null)
  t.notOk(Object.hasOwn(picked, 'unread'), 'a key no flag reads is not copied')
  t.notOk(Object.hasOwn(picked, 'absent'), 'a read key no layer holds stays absent, so is_not_set still holds')
})

t.test('flags evaluate alike on picked properties and on every property merged, whatever else a request carries', async (t) => {
  const compiled = compileFlags(differentialDefinitions)
  const random = seededRandom(20261126)
  const noise = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`unread-${i}`, i]))
  const differences: string[] = []
  for (let i = 0; i < 500; i++) {
    const c = randomCase(random, i, Date.now())
    // Stored properties and the request's overlap: the request's win where both hold a key.
    const entries = Object.entries(c.personProperties)
    const stored = Object.fromEntries(entries.filter(() => random() < 0.6).map(([key, value]) => [key, random() < 0.5 ? 'stale' : value]))
    const asked = { ...noise, ...Object.fromEntries(entries.filter(([key]) => !Object.hasOwn(stored, key) || random() < 0.5)) }
    const merged = { ...stored, ...asked }
    const groupMerged = { company: { ...noise, ...c.groupProperties['company'] } }
    const common = { definitions: compiled, distinctId: c.distinctId, groups: c.groups, now: Date.now() }
    const whole = evaluateFlags({ ...common, personProperties: merged, groupProperties: groupMerged })
    const picked = evaluateFlags({
      ...common,
      personProperties: pickProperties(compiled.propertyKeys, stored, asked),
      groupProperties: { company: pickProperties(compiled.propertyKeys, noise, c.groupProperties['company']) },
    })
    if (JSON.stringify(whole) !== JSON.stringify(picked)) differences.push(`${c.distinctId}: ${JSON.stringify(whole.flags.map((f) => f.value))} against ${JSON.stringify(picked.flags.map((f) => f.value))}`)
  }
  t.same(differences, [], 'no flag value, payload or reason differs in 500 random cases')
  t.ok(compiled.propertyKeys.length < 20, `the flags read ${compiled.propertyKeys.length} keys, far fewer than the 3,000 sent`)
})
