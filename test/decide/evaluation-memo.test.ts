import t from 'tap'
import { compileFlags } from '../../src/decide/compile.js'
import type { FlagDefinitionSet, PropertyFilter } from '../../src/decide/definitions.js'
import { evaluateFlags, type EvaluationInput } from '../../src/decide/evaluate.js'
import { EvaluationMemo } from '../../src/decide/evaluation-memo.js'
import { decideBody } from '../../src/decide/response-json.js'
import type { DecideFormat } from '../../src/decide/responses.js'
import { differentialDefinitions, randomCase } from './support/differential-flags.js'
import { flag, seededRandom } from './support/flags.js'

const CASES = 3000
const FORMATS: readonly DecideFormat[] = ['v1', 'v2', 'v3', 'detailed']
const BODY = { requestId: 'request' }
const DAY = 86_400_000

const person = (key: string, operator: string, value: PropertyFilter['value']): PropertyFilter => ({ key, operator, value, type: 'person' })

/** The differential flags, and the kinds they leave out: super conditions, holdouts, dependencies, semver, exact dates, continuity. */
const definitions: FlagDefinitionSet = {
  ...differentialDefinitions,
  flags: [
    ...differentialDefinitions.flags,
    flag('early', { groups: [{ properties: [], rollout_percentage: 20 }], super_groups: [{ properties: [person('$feature_enrollment/early', 'exact', true)], rollout_percentage: 100 }] }),
    flag('held-out', {
      groups: [{ properties: [person('plan', 'exact', 'pro')] }],
      multivariate: { variants: [{ key: 'control', rollout_percentage: 50 }, { key: 'test', rollout_percentage: 50 }] },
      holdout_groups: [{ properties: [], rollout_percentage: 30, variant: 'holdout-1' }],
    }),
    flag('after-plan', { groups: [{ properties: [{ key: 'plan-exact', type: 'flag', operator: 'flag_evaluates_to', value: true }] }] }),
    flag('version', { groups: [{ properties: [person('app_version', 'semver_gte', '1.2.0')] }] }),
    flag('signed-up-day', { groups: [{ properties: [person('signed_up', 'is_date_exact', '-400d')] }] }),
    flag('continuity', { groups: [{ properties: [], rollout_percentage: 50 }] }, { ensure_experience_continuity: true }),
    flag('company-founded', {
      aggregation_group_type_index: 0,
      groups: [{ properties: [{ key: 'founded', operator: 'is_date_before', value: '-1y', type: 'group', group_type_index: 0 }] }],
    }),
  ],
}

t.test('remembered hashes and evaluations give the same answers as everything made afresh', async (t) => {
  const compiled = compileFlags(definitions)
  const memo = new EvaluationMemo()
  const random = seededRandom(20261207)
  let nowMs = Date.now()
  // A few people asked about again and again, as SDKs ask: mostly with the properties of their
  // last request, sometimes with one of them changed, or with all of them new.
  const people = Array.from({ length: 40 }, (_, i) => ({ distinctId: randomCase(random, i, nowMs).distinctId, last: null as EvaluationInput | null, flags: null as readonly unknown[] | null }))
  let differing = 0
  let differingBodies = 0
  let reused = 0
  let sameList = 0
  for (let i = 0; i < CASES; i++) {
    // The clock moves on, now and then by days: flags reading relative dates change their answer.
    nowMs += random() < 0.1 ? Math.floor(random() * 60 * DAY) : Math.floor(random() * 1000)
    const c = randomCase(random, i, nowMs)
    const someone = people[i % people.length]!
    const roll = random()
    const extra = { app_version: ['1.1.9', '1.2.0', '2.0.0'][i % 3], '$feature_enrollment/early': [true, false, undefined][i % 3] }
    // Now and then a relative date as the property: parsed once, it is still read against each request's clock.
    const fresh = { ...c.personProperties, ...extra, ...(i % 4 === 0 ? { signed_up: `-${i % 90}d` } : {}) }
    const props = someone.last === null || roll < 0.2 ? fresh
      : roll < 0.5 ? someone.last.personProperties!
        : roll < 0.7 ? JSON.parse(JSON.stringify(someone.last.personProperties)) as Record<string, unknown>
          : roll < 0.85 ? { ...someone.last.personProperties, plan: c.personProperties['plan'] }
            // A list the flags read: never taken for the same, even when it is the same object.
            : { ...someone.last.personProperties, plan: ['pro', 'team'] }
    const input: EvaluationInput = {
      definitions: compiled, distinctId: someone.distinctId, personProperties: props,
      groups: random() < 0.2 ? { company: someone.distinctId } : c.groups, now: nowMs,
      // A group's date: a new one in each request, which must not pile up with the person's.
      groupProperties: { company: { ...c.groupProperties['company'], founded: new Date(nowMs - Math.floor(random() * 800 * DAY)).toISOString() } },
      ...(random() < 0.2 ? { hashKeyOverrides: { continuity: `anon-${i % 7}` } } : {}),
    }
    someone.last = input
    const remembered = memo.of(compiled, someone.distinctId)
    if (remembered !== undefined && remembered.evaluations.some((evaluation) => evaluation !== undefined) && remembered.props !== null) reused++
    const afresh = evaluateFlags(input)
    const withMemo = evaluateFlags({ ...input, remembered })
    if (JSON.stringify(afresh) !== JSON.stringify(withMemo)) differing++
    if (withMemo.flags === someone.flags) sameList++
    someone.flags = withMemo.flags
    // A list given again has its texts written once: they must be what a list made afresh reads as.
    for (const format of FORMATS) if (decideBody({ format, includeConfig: false }, withMemo, BODY) !== decideBody({ format, includeConfig: false }, afresh, BODY)) differingBodies++
  }
  t.equal(differing, 0, `${CASES} evaluations agree`)
  t.equal(differingBodies, 0, 'and so do their bodies in every format')
  t.ok(reused > CASES * 0.4, `many evaluations could read remembered ones (${reused})`)
  const strangers = people.flatMap(({ distinctId }) => {
    const { dates, props } = memo.of(compiled, distinctId)!
    return [...dates.keys()].filter((text) => !Object.values(props ?? {}).includes(text))
  })
  t.same(strangers, [], 'the date strings kept with a person are values of its kept properties')
  t.ok(sameList > CASES * 0.04, `many requests were given the list their person was given last (${sameList})`)
})

t.test('only flags that read nothing but the person\'s properties are remembered, and only for the same properties', async (t) => {
  const compiled = compileFlags(definitions)
  const memo = new EvaluationMemo()
  memo.of(compiled, 'ada')
  const remembered = memo.of(compiled, 'ada')!
  const nowMs = Date.now()
  const props = { plan: 'pro', email: 'ada@example.com', name: 'ada', age: 36, signed_up: new Date(nowMs - 20 * DAY).toISOString(), beta: true, score: 42 }
  const first = evaluateFlags({ definitions: compiled, distinctId: 'ada', personProperties: props, groups: { company: 'acme' }, groupProperties: { company: { tier: 'gold' } }, now: nowMs, remembered })
  const kept = new Set(compiled.evaluationOrder.filter((f) => remembered.evaluations[f.position] !== undefined).map((f) => f.key))
  for (const key of ['plan-exact', 'email-contains', 'age-gt', 'early', 'held-out', 'version', 'rollout-only']) t.ok(kept.has(key), `${key} is remembered`)
  for (const key of ['signed-up-after', 'signed-up-day', 'cohort-members', 'after-plan', 'company-plan']) t.notOk(kept.has(key), `${key} is not`)
  t.same(Object.keys(remembered.props!).sort(), Object.keys(props).filter((key) => compiled.propertyKeys.includes(key)).sort(), 'the properties they were made for are kept')

  // Forty days on, with the same properties: the flag reading "-30d" answers differently.
  const later = evaluateFlags({ definitions: compiled, distinctId: 'ada', personProperties: props, now: nowMs + 40 * DAY, remembered })
  const valueOf = (result: typeof first, key: string) => result.flags.find((f) => f.key === key)!.value
  t.equal(valueOf(first, 'signed-up-after'), true)
  t.equal(valueOf(later, 'signed-up-after'), false, 'a flag reading the clock is evaluated again')

  // A remembered evaluation is not used for changed properties.
  t.equal(valueOf(first, 'email-contains'), true)
  const changed = evaluateFlags({ definitions: compiled, distinctId: 'ada', personProperties: { ...props, email: 'ada@home.net' }, now: nowMs, remembered })
  t.equal(valueOf(changed, 'email-contains'), false, 'a changed property is read again')

  // A list may change in place: properties holding one are never kept.
  const emails = ['ada@example.com']
  const withList = evaluateFlags({ definitions: compiled, distinctId: 'ada', personProperties: { ...props, email: emails }, now: nowMs, remembered })
  t.equal(valueOf(withList, 'email-contains'), true, 'a list is read as its JSON text')
  t.equal(remembered.props, null, 'properties holding a list are not kept')
  emails[0] = 'ada@home.net'
  const input = { definitions: compiled, distinctId: 'ada', personProperties: { ...props, email: emails }, now: nowMs }
  t.equal(valueOf(evaluateFlags({ ...input, remembered }), 'email-contains'), false, 'a list changed in place is read again')
  t.same(evaluateFlags({ ...input, remembered }), evaluateFlags(input))
})

t.test('a changed flag set starts with nothing remembered', async (t) => {
  const memo = new EvaluationMemo()
  const before = compileFlags(differentialDefinitions)
  memo.of(before, 'ada')
  const remembered = memo.of(before, 'ada')!
  evaluateFlags({ definitions: before, distinctId: 'ada', personProperties: { plan: 'pro', email: 'ada@example.com' }, now: Date.now(), remembered })
  t.ok(remembered.hashes.some((slot) => !Number.isNaN(slot)), 'hashes were remembered')
  t.ok(remembered.evaluations.some((evaluation) => evaluation !== undefined), 'and evaluations')
  t.equal(memo.of(before, 'ada'), remembered, 'and are found again under the same flags')
  // The same flags with each key changed: every hash differs, and none may be read from before.
  const renamed = compileFlags({ ...differentialDefinitions, flags: differentialDefinitions.flags.map((f) => ({ ...f, key: `${f.key}-2` })) })
  const after = memo.of(renamed, 'ada')!
  t.ok(after.hashes.every((slot) => Number.isNaN(slot)), 'a new flag set has its own, empty slots')
  t.ok(after.evaluations.every((evaluation) => evaluation === undefined), 'and no evaluations')
  const input = { definitions: renamed, distinctId: 'ada', personProperties: { plan: 'pro', email: 'ada@example.com' }, now: Date.now() }
  t.same(evaluateFlags({ ...input, remembered: after }), evaluateFlags(input))
})

t.test('an identifier is remembered from its second ask on', async (t) => {
  const memo = new EvaluationMemo()
  const compiled = compileFlags(differentialDefinitions)
  t.equal(memo.of(compiled, 'visitor'), undefined, 'nothing is kept for an identifier asked about once')
  const remembered = memo.of(compiled, 'visitor')
  t.ok(remembered, 'asked again, it is remembered')
  t.equal(memo.of(compiled, 'visitor'), remembered, 'and found from then on')
  const renamed = compileFlags({ ...differentialDefinitions, flags: differentialDefinitions.flags.map((f) => ({ ...f, key: `${f.key}-2` })) })
  t.ok(memo.of(renamed, 'visitor'), 'under new flags, an identifier asked about lately is remembered at once')
})
