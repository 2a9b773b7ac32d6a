import t from 'tap'
import {
  emptyMapping, groupEffectsOf, groupIdentifyOf, groupIndexProperties, resolveGroupType, upsertGroup,
} from '../../src/groups/groups.js'
import { captured, normalised } from './support/tables.js'

const at = (minute: number) => `2024-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`

t.test('a new group type gets the lowest unused index; at most five types exist', async (t) => {
  let mapping = emptyMapping(1)
  const indexes: (number | null)[] = []
  for (const type of ['company', 'team', 'org', 'project', 'account', 'sixth']) {
    const resolved = resolveGroupType(mapping, type, at(1))
    mapping = resolved.mapping
    indexes.push(resolved.index)
  }
  t.same(indexes, [0, 1, 2, 3, 4, null])
  t.equal(mapping.types.length, 5)
  t.equal(resolveGroupType(mapping, 'team', at(2)).index, 1)
  const gap = { environment_id: 1, types: [{ group_type: 'b', group_type_index: 1, created_at: at(1) }] }
  t.equal(resolveGroupType(gap, 'new', at(1)).index, 0)
})

t.test('a type keeps the earliest time it was seen', async (t) => {
  const first = resolveGroupType(emptyMapping(1), 'company', at(5)).mapping
  t.equal(resolveGroupType(first, 'company', at(9)).mapping, first)
  t.equal(resolveGroupType(first, 'company', at(2)).mapping.types[0]!.created_at, at(2))
})

t.test('$groups maps known types to $group_<index>; unknown types and non-objects are ignored', async (t) => {
  const mapping = resolveGroupType(resolveGroupType(emptyMapping(1), 'company', at(1)).mapping, 'team', at(1)).mapping
  t.same(groupIndexProperties({ company: 'acme', team: 7, other: 'x' }, mapping), { $group_0: 'acme', $group_1: 7 })
  t.same(groupIndexProperties('company', mapping), {})
})

t.test('an event\'s $groups and its $groupidentify type are mapped, in that order', async (t) => {
  const event = normalised(captured('$groupidentify', 'u', {
    properties: { $groups: { team: 't1' }, $group_type: 'company', $group_key: 42, $group_set: { name: 'Acme' } },
  }))
  const effects = groupEffectsOf(event, emptyMapping(1))
  t.same(effects.mapping.types.map((type) => [type.group_type, type.group_type_index]), [['team', 0], ['company', 1]])
  t.same(effects.identify, { index: 1, request: { groupType: 'company', groupKey: '42', groupSet: { name: 'Acme' } } })
})

t.test('a $groupidentify without type or key upserts nothing', async (t) => {
  t.equal(groupIdentifyOf(normalised(captured('$groupidentify', 'u', { properties: { $group_type: 'company' } }))), null)
  t.equal(groupIdentifyOf(normalised(captured('$groupidentify', 'u', { properties: { $group_key: 'k' } }))), null)
  t.equal(groupIdentifyOf(normalised(captured('$pageview', 'u', { properties: { $group_type: 'c', $group_key: 'k' } }))), null)
})

t.test('group properties merge shallowly, last write wins, creation time is the earliest', async (t) => {
  const request = (groupSet: Record<string, unknown>) => ({ groupType: 'company', groupKey: 'acme', groupSet })
  const created = upsertGroup(null, 1, 0, request({ name: 'Acme', address: { city: 'A', zip: '1' } }), at(10))
  t.same(created, { environment_id: 1, group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme', address: { city: 'A', zip: '1' } }, created_at: at(10), version: 0 })
  const updated = upsertGroup(created, 1, 0, request({ address: { city: 'B' }, size: 5 }), at(12))
  t.same(updated.group_properties, { name: 'Acme', address: { city: 'B' }, size: 5 })
  t.equal(updated.version, 1)
  t.equal(upsertGroup(updated, 1, 0, request({ size: 5 }), at(20)), updated, 'nothing changed')
  t.equal(upsertGroup(updated, 1, 0, request({}), at(1)).created_at, at(1))
})
