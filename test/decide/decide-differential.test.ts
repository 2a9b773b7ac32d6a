import t, { type Test } from 'tap'
import { differentialDefinitions, randomCase } from './support/differential-flags.js'
import { seededRandom } from './support/flags.js'
import { decideWorld } from './support/decide-world.js'

/** The part of posthog-node 4.10.2 used here (its shipped typings do not compile under our options). */
interface PostHogClient {
  getFeatureFlag(key: string, distinctId: string, options?: object): Promise<string | boolean | undefined>
  getFeatureFlagPayload(key: string, distinctId: string, matchValue?: undefined, options?: object): Promise<unknown>
  getAllFlags(distinctId: string, options?: object): Promise<Record<string, string | boolean>>
  reloadFeatureFlags(): Promise<void>
  shutdown(): Promise<void>
}
const MODULE: string = 'posthog-node'
const postHog = async (token: string, options: object): Promise<PostHogClient> => {
  const { PostHog } = (await import(MODULE)) as { PostHog: new (token: string, options: object) => PostHogClient }
  return new PostHog(token, options)
}

const parsed = (payload: unknown): unknown => {
  if (typeof payload !== 'string') return payload ?? null
  try {
    return JSON.parse(payload)
  } catch {
    return payload
  }
}

// Left out: the cohort-targeted flag (cohorts are not part of Hedgelog's flag API), the flag
// whose variants sum to 60% and the one whose pattern the regex engine refuses; and the override
// to a variant that does not exist is dropped. The flag API refuses those as PostHog does.
const definitions = differentialDefinitions.flags
  .filter((flag) => !['cohort-members', 'variants-short', 'name-bad-regex'].includes(flag.key))
  .map((flag) => (flag.key === 'overrides' ? { ...flag, filters: { ...flag.filters, groups: flag.filters.groups!.slice(0, 2) } } : flag))

const setup = async (t: Test) => {
  const w = await decideWorld(t)
  // The group type `company` gets index 0, as in the definitions.
  await w.app.inject({
    method: 'POST', url: '/capture/',
    payload: { api_key: w.token, event: '$groupidentify', distinct_id: 'setup', properties: { $group_type: 'company', $group_key: 'seed' } },
  })
  for (let i = 0; i < 200; i++) {
    const local = await w.api.get('/api/feature_flag/local_evaluation')
    if (local.body.group_type_mapping?.['0'] === 'company') break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  for (const flag of definitions) await w.createFlag(flag.key, flag.filters, { active: flag.active })
  const oracle = await postHog(w.token, { host: w.address, personalApiKey: w.key.value, featureFlagsPollingInterval: 3_600_000, fetchRetryCount: 0 })
  t.teardown(() => oracle.shutdown())
  await oracle.reloadFeatureFlags()
  return { ...w, oracle }
}

t.test('/decide?v=3 agrees with posthog-node 4.10.2 evaluating our local-evaluation definitions', async (t) => {
  const w = await setup(t)
  const local = await w.api.get('/api/feature_flag/local_evaluation')
  t.same(local.body.flags.map((f: { key: string }) => f.key).sort(), definitions.map((f) => f.key).sort(), 'the SDK gets every flag')
  t.same(local.body.group_type_mapping, { '0': 'company' })
  const random = seededRandom(424242)
  const mismatches: string[] = []
  let inconclusive = 0
  const CASES = 2000
  for (let i = 0; i < CASES && mismatches.length < 20; i++) {
    const c = randomCase(random, i, Date.now())
    const groupProperties = Object.fromEntries(Object.entries(c.groupProperties).map(([type, props]) => [type, { $group_key: c.groups[type], ...props }]))
    const { body } = await w.decide({
      distinct_id: c.distinctId, groups: c.groups, person_properties: { distinct_id: c.distinctId, ...c.personProperties }, group_properties: groupProperties, geoip_disable: true,
    })
    const call = { personProperties: c.personProperties, groups: c.groups, groupProperties: c.groupProperties, onlyEvaluateLocally: true, sendFeatureFlagEvents: false }
    for (const { key } of definitions) {
      const expected = await w.oracle.getFeatureFlag(key, c.distinctId, call)
      if (expected === undefined) inconclusive++
      const value = body.featureFlags[key] ?? false
      if (expected !== value) mismatches.push(`${key} for ${c.distinctId}: sdk ${String(expected)}, decide ${String(value)}`)
      const expectedPayload = parsed(await w.oracle.getFeatureFlagPayload(key, c.distinctId, undefined, call))
      const payload = parsed(body.featureFlagPayloads[key])
      if (JSON.stringify(expectedPayload) !== JSON.stringify(payload)) mismatches.push(`${key} payload for ${c.distinctId}: sdk ${JSON.stringify(expectedPayload)}, decide ${JSON.stringify(payload)}`)
    }
  }
  t.equal(inconclusive, 0, 'every case is one the SDK can decide locally')
  t.same(mismatches, [], 'no disagreement on any value or payload')
})

t.test('posthog-node 4.10.2 asking the service remotely gets what its local evaluation says', async (t) => {
  const w = await setup(t)
  const remote = await postHog(w.token, { host: w.address, fetchRetryCount: 0, flushAt: 1, flushInterval: 0 })
  t.teardown(() => remote.shutdown())
  const random = seededRandom(77)
  for (let i = 0; i < 60; i++) {
    const c = randomCase(random, i, Date.now())
    const call = { personProperties: c.personProperties, groups: c.groups, groupProperties: c.groupProperties, sendFeatureFlagEvents: false }
    const local = { ...call, onlyEvaluateLocally: true }
    const all = await remote.getAllFlags(c.distinctId, call)
    const expectedAll: Record<string, string | boolean> = {}
    for (const { key } of definitions) {
      const value = await w.oracle.getFeatureFlag(key, c.distinctId, local)
      if (value !== undefined && !(value === false && definitions.find((f) => f.key === key)!.active === false)) expectedAll[key] = value
    }
    t.same(all, expectedAll, `getAllFlags for ${c.distinctId}`)
    for (const key of ['multivariate', 'overrides', 'plan-exact', 'company-plan']) {
      t.equal(await remote.getFeatureFlag(key, c.distinctId, call), await w.oracle.getFeatureFlag(key, c.distinctId, local), `getFeatureFlag ${key}`)
      t.same(parsed(await remote.getFeatureFlagPayload(key, c.distinctId, undefined, call)), parsed(await w.oracle.getFeatureFlagPayload(key, c.distinctId, undefined, local)), `payload ${key}`)
    }
  }
})

t.test('the published consistency vector through /decide: the 45% flag is on for 446 of 1000 ids', async (t) => {
  const w = await decideWorld(t)
  await w.createFlag('simple-flag', { groups: [{ properties: [], rollout_percentage: 45 }] })
  let on = 0
  for (let i = 0; i < 1000; i++) if ((await w.decide({ distinct_id: `distinct_id_${i}` })).body.featureFlags['simple-flag'] === true) on++
  t.equal(on, 446)
})
