import t from 'tap'
import { decideWorld } from './support/decide-world.js'

const groupIdentify = (token: string, type: string, tier: string) => ({
  api_key: token, event: '$groupidentify', distinct_id: 'admin', properties: { $group_type: type, $group_key: 'acme', $group_set: { tier } },
})

t.test('a group type named like what Object.prototype holds reads its own group properties only', async (t) => {
  const w = await decideWorld(t)
  for (const type of ['__proto__', 'constructor']) await w.app.inject({ method: 'POST', url: '/capture/', payload: groupIdentify(w.token, type, 'gold') })
  if (!(await w.models.waitFor((await w.log.headPosition())!, ['groups', 'group_type_mappings'], 10_000))) throw new Error('projections did not catch up')
  await w.createFlag('proto-gold', {
    aggregation_group_type_index: 0,
    groups: [{ properties: [{ key: 'tier', type: 'group', group_type_index: 0, operator: 'exact', value: 'gold' }], rollout_percentage: 100 }],
  })
  await w.createFlag('constructor-named', {
    aggregation_group_type_index: 1,
    groups: [{ properties: [{ key: 'name', type: 'group', group_type_index: 1, operator: 'is_set' }], rollout_percentage: 100 }],
  })
  // A computed key makes `__proto__` an own key, which JSON.stringify then sends.
  const groups = { ['__proto__']: 'acme', constructor: 'acme' }
  t.same((await w.decide({ distinct_id: 'someone', groups })).body.featureFlags, { 'proto-gold': true, 'constructor-named': false })
  const overridden = { ['__proto__']: { tier: 'bronze' } }
  t.same((await w.decide({ distinct_id: 'someone', groups, group_properties: overridden })).body.featureFlags, { 'proto-gold': false, 'constructor-named': false })
})
