import t from 'tap'
import { flagFiltersCreateSchema, flagFiltersSchema, isValidFlagKey } from '../../src/decide/filters-schema.js'

const problem = (filters: unknown, schema = flagFiltersSchema): string | null => {
  const result = schema.safeParse(filters)
  return result.success ? null : result.error.issues[0]!.message
}
const person = (extra: Record<string, unknown>) => ({ key: 'plan', value: 'pro', type: 'person', ...extra })

t.test('flag keys are letters, digits, hyphens and underscores', async (t) => {
  for (const key of ['my-flag', 'MY_FLAG_2', '_', '__proto__']) t.ok(isValidFlagKey(key), key)
  for (const key of ['', 'has space', 'dot.ted', 'émoji', 'a/b', 42]) t.notOk(isValidFlagKey(key), String(key))
})

t.test('a well-formed multivariate flag passes and object payloads become JSON strings', async (t) => {
  const result = flagFiltersSchema.parse({
    groups: [{ properties: [person({ operator: 'icontains' })], rollout_percentage: 50, variant: 'b' }],
    multivariate: { variants: [{ key: 'a', name: 'A', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
    payloads: { a: { x: 1 }, b: '"text"' },
  })
  t.same(result.payloads, { a: '{"x":1}', b: '"text"' })
})

t.test('percentages are between 0 and 100', async (t) => {
  t.equal(problem({ groups: [{ rollout_percentage: 101 }] }), 'Rollout percentage must be between 0 and 100.')
  t.equal(problem({ groups: [{ rollout_percentage: -1 }] }), 'Rollout percentage must be between 0 and 100.')
  t.equal(problem({ groups: [], multivariate: { variants: [{ key: 'a', rollout_percentage: 120 }] } }), 'Variant rollout percentage must be between 0 and 100.')
})

t.test('variants must sum to 100, have unique keys, and overrides must name one', async (t) => {
  t.equal(problem({ groups: [], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 40 }] } }),
    'Invalid variant definitions: Variant rollout percentages must sum to 100.')
  t.equal(problem({ groups: [], multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'a', rollout_percentage: 50 }] } }),
    'Invalid variant definitions: Variant keys must be unique.')
  t.equal(problem({ groups: [{ variant: 'c' }], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } }),
    'Filters are not valid (variant override does not exist)')
})

t.test('person flags take person, cohort and flag filters; group flags only their group\'s', async (t) => {
  t.equal(problem({ groups: [{ properties: [{ key: 'x', value: 1, type: 'event' }] }] }), 'Filters are not valid (can only use person, cohort, and flag properties)')
  t.equal(problem({ groups: [{ properties: [{ key: 'x', value: 1 }] }] }), 'Filters are not valid (can only use person, cohort, and flag properties)', 'a filter without a type is an event filter')
  t.equal(problem({ groups: [{ properties: [{ key: '12', value: true, type: 'flag', operator: 'exact' }] }] }), "Flag properties must use the 'flag_evaluates_to' operator")
  t.equal(problem({ aggregation_group_type_index: 0, groups: [{ properties: [person({})] }] }), 'Filters are not valid (can only use group properties)')
  t.equal(problem({ aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: 1 }] }] }), 'Filters are not valid (can only use group properties)')
  t.equal(problem({ aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'tier', value: 'gold', type: 'group', group_type_index: 0 }] }] }), null)
})

t.test('operator values are checked as PostHog checks them', async (t) => {
  t.equal(problem({ groups: [{ properties: [person({ operator: 'gt', value: 5 })] }] }), 'Invalid value for operator gt: 5')
  t.equal(problem({ groups: [{ properties: [person({ operator: 'regex', value: ['a'] })] }] }), "Invalid value for operator regex: ['a']")
  t.equal(problem({ groups: [{ properties: [person({ operator: 'is_date_after', value: 'someday' })] }] }), 'Invalid date value: someday')
  t.equal(problem({ groups: [{ properties: [person({ operator: 'is_date_after', value: '-30d' })] }] }), null)
  t.equal(problem({ groups: [{ properties: [person({ operator: 'in', value: 3 })] }] }), "The 'in' operator is only valid for cohort properties, not 'person' properties.")
  t.equal(problem({ groups: [{ properties: [person({ value: Array.from({ length: 1001 }, (_, i) => i) })] }] }), 'Property group expressions of type plan cannot contain more than 1000 values.')
  const unknown = flagFiltersSchema.safeParse({ groups: [{ properties: [person({ operator: 'resembles' })] }] })
  t.match(unknown.success ? null : unknown.error.issues[0], { code: 'invalid_value', path: ['groups', 0, 'properties', 0, 'operator'] }, 'unknown operators are an invalid choice')
})

t.test('payloads are a dictionary of JSON keyed by "true" or a variant', async (t) => {
  t.equal(problem({ groups: [], payloads: ['x'] }), 'Payloads must be passed as a dictionary')
  t.equal(problem({ groups: [], payloads: { true: 'not json' } }), 'Payload value is not valid JSON')
  t.equal(problem({ groups: [], payloads: { false: '1' } }), "Payload keys must be 'true' for boolean flags")
  t.equal(problem({ groups: [], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] }, payloads: { true: '1' } }), 'Payload keys must match a variant key for multivariate flags')
})

t.test('creating a flag needs at least one condition set, checked first', async (t) => {
  t.equal(problem({ groups: [], payloads: { nope: '1' } }, flagFiltersCreateSchema), 'Feature flags must have at least one condition set (group).')
  t.equal(problem({ groups: [{}] }, flagFiltersCreateSchema), null)
  t.equal(problem({ groups: [] }), null, 'updates may have none')
})

t.test('cross-field problems carry an empty path so nesting reports the filters field', async (t) => {
  const result = flagFiltersSchema.safeParse({ groups: [], payloads: { false: '1' } })
  t.same(result.success ? null : result.error.issues[0]!.path, [])
})
