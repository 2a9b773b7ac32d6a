import t from 'tap'
import { personUuid } from '../../src/persons/person-uuid.js'
import { captured, memoryTables, processAll } from './support/tables.js'

const identify = (distinctId: string, anon?: string, set: Record<string, unknown> = {}) =>
  captured('$identify', distinctId, { properties: anon === undefined ? {} : { $anon_distinct_id: anon }, set })
const alias = (distinctId: string, aliasId: unknown) => captured('$create_alias', distinctId, { properties: { alias: aliasId } })
const pageview = (distinctId: string, set: Record<string, unknown> = {}) => captured('$pageview', distinctId, { set })

t.test('an ordinary event creates its person from the first distinct id', async (t) => {
  const { tables, personOf } = memoryTables(7)
  const event = captured('signed up', 'alice', { set: { plan: 'pro' }, set_once: { first: 'yes', plan: 'free' } })
  t.same(processAll(tables, event), [{ person: 'created', merge: null }])
  t.same(personOf('alice'), {
    id: 1, uuid: personUuid(7, 'alice'), environment_id: 7,
    properties: { first: 'yes', plan: 'pro', $creator_event_uuid: event.uuid },
    distinct_ids: ['alice'], is_identified: false, created_at: event.timestamp, version: 0,
  })
})

t.test('later events apply $set_once, $set and $unset in that order and bump the version', async (t) => {
  const { tables, personOf } = memoryTables()
  processAll(tables,
    pageview('alice', { a: 1, gone: true }),
    captured('$set', 'alice', { set: { a: 2 }, set_once: { a: 3, b: 'once' } }),
    captured('$set', 'alice', { properties: { $unset: ['gone'] } }),
    captured('$set', 'alice', { set_once: { b: 'again' } }))
  t.match(personOf('alice'), { properties: { a: 2, b: 'once' }, version: 2 })
  t.notOk(Object.hasOwn(personOf('alice')!.properties, 'gone'))
})

t.test('$identify without $anon_distinct_id only updates properties', async (t) => {
  const { tables, personOf } = memoryTables()
  t.same(processAll(tables, pageview('anon'), identify('alice', undefined, { email: 'a@x.test' })).map((r) => r.merge), [null, null])
  t.match(personOf('alice'), { is_identified: false, distinct_ids: ['alice'], properties: { email: 'a@x.test' } })
  t.not(personOf('alice')!.uuid, personOf('anon')!.uuid)
})

t.test('$identify attaches the new id to the anonymous person, which keeps its identity', async (t) => {
  const { tables, personOf, persons } = memoryTables()
  const [, result] = processAll(tables, pageview('anon', { seen: 1 }), identify('alice', 'anon', { email: 'a@x.test' }))
  t.equal(result!.merge, 'attached')
  t.equal(personOf('alice')!.uuid, personOf('anon')!.uuid)
  t.match(personOf('alice'), { uuid: personUuid(1, 'anon'), distinct_ids: ['anon', 'alice'], is_identified: true, properties: { seen: 1, email: 'a@x.test' } })
  t.equal(persons.size, 1)
})

t.test('$identify creates one identified person for two new ids, its UUID from the identified id', async (t) => {
  const { tables, personOf } = memoryTables()
  const [result] = processAll(tables, identify('alice', 'anon', { email: 'a@x.test' }))
  t.equal(result!.merge, 'created')
  t.match(personOf('anon'), { uuid: personUuid(1, 'alice'), distinct_ids: ['alice', 'anon'], is_identified: true, properties: { email: 'a@x.test' } })
})

t.test('when only the anonymous id was used without a person, the new person takes its UUID', async (t) => {
  const { tables, personOf, distinctIds } = memoryTables()
  processAll(tables, captured('$pageview', 'anon', { properties: { $process_person_profile: false } }))
  t.same(distinctIds.get('anon'), { environment_id: 1, distinct_id: 'anon', person_id: null })
  processAll(tables, identify('alice', 'anon'))
  t.match(personOf('alice'), { uuid: personUuid(1, 'anon'), distinct_ids: ['anon', 'alice'] })
})

t.test('two persons merge into the identified one: its properties win, the earlier creation time stays', async (t) => {
  const { tables, personOf, persons } = memoryTables()
  const first = pageview('anon', { shared: 'anon', onlyAnon: 1 })
  processAll(tables, first, pageview('alice', { shared: 'alice' }))
  const target = personOf('alice')!
  const [result] = processAll(tables, identify('alice', 'anon', { after: true }))
  t.equal(result!.merge, 'merged')
  t.equal(persons.size, 1)
  t.same(personOf('anon'), {
    ...target,
    properties: { shared: 'alice', onlyAnon: 1, $creator_event_uuid: target.properties['$creator_event_uuid'], after: true },
    distinct_ids: ['alice', 'anon'],
    is_identified: true,
    created_at: first.timestamp,
    version: 2,
  })
})

t.test('a merge is refused when the other person is already identified; the target is still flagged', async (t) => {
  const { tables, personOf } = memoryTables()
  processAll(tables, identify('bob', 'bob-anon'), pageview('alice'))
  const bob = personOf('bob')!
  const [result] = processAll(tables, identify('alice', 'bob', { email: 'a@x.test' }))
  t.equal(result!.merge, 'refused_already_identified')
  t.same(personOf('bob'), bob)
  t.match(personOf('alice'), { is_identified: true, distinct_ids: ['alice'], properties: { email: 'a@x.test' } })
})

t.test('$merge_dangerously merges an identified person too', async (t) => {
  const { tables, personOf, persons } = memoryTables()
  processAll(tables, identify('bob', 'bob-anon'), pageview('alice'))
  const [result] = processAll(tables, captured('$merge_dangerously', 'alice', { properties: { alias: 'bob' } }))
  t.equal(result!.merge, 'merged')
  t.equal(persons.size, 1)
  t.same(personOf('alice')!.distinct_ids, ['bob', 'alice', 'bob-anon'])
})

t.test('ids of one person, or one id twice, merge nothing; only the former flags the person', async (t) => {
  const { tables, personOf } = memoryTables()
  processAll(tables, pageview('anon'), identify('alice', 'anon'))
  t.equal(processAll(tables, identify('alice', 'anon'))[0]!.merge, 'already_joined')
  const { tables: other, personOf: otherPerson } = memoryTables()
  t.same(processAll(other, identify('alice', 'alice')).map((r) => r.merge), ['same_id'])
  t.equal(otherPerson('alice')!.is_identified, false)
  t.equal(personOf('alice')!.is_identified, true)
})

t.test('an illegal id never merges; the event still updates its own person', async (t) => {
  for (const [target, source] of [['alice', 'null'], ['undefined', 'anon'], ['alice', ' '], ['alice', 'GUEST']] as const) {
    const { tables, personOf } = memoryTables()
    processAll(tables, pageview(source === ' ' ? 'x' : source))
    const [result] = processAll(tables, identify(target, source, { email: 'e' }))
    t.equal(result!.merge, 'illegal_id', `${target} / ${source}`)
    t.match(personOf(target), { distinct_ids: [target], is_identified: false, properties: { email: 'e' } })
  }
})

t.test('$create_alias attaches the alias to the distinct id\'s person and lists it first', async (t) => {
  const { tables, personOf } = memoryTables()
  processAll(tables, pageview('user-1'))
  const [result] = processAll(tables, alias('user-1', 'alias-1'))
  t.equal(result!.merge, 'attached')
  t.match(personOf('alias-1'), { uuid: personUuid(1, 'user-1'), distinct_ids: ['alias-1', 'user-1'], is_identified: true })
})

t.test('$create_alias joins the distinct id to the alias\'s person when only that exists', async (t) => {
  const { tables, personOf } = memoryTables()
  processAll(tables, pageview('alias-1'), alias('user-1', 'alias-1'))
  t.match(personOf('user-1'), { uuid: personUuid(1, 'alias-1'), distinct_ids: ['alias-1', 'user-1'] })
})

t.test('$create_alias of two new ids creates one person, UUID from the distinct id, alias first', async (t) => {
  const { tables, personOf } = memoryTables()
  processAll(tables, alias('user-1', 'alias-1'))
  t.match(personOf('user-1'), { uuid: personUuid(1, 'user-1'), distinct_ids: ['alias-1', 'user-1'] })
})

t.test('$create_alias merges the alias\'s person into the distinct id\'s person', async (t) => {
  const { tables, personOf, persons } = memoryTables()
  processAll(tables, pageview('user-1', { a: 'user' }), pageview('alias-1', { a: 'alias', b: 'alias' }))
  processAll(tables, alias('user-1', 'alias-1'))
  t.equal(persons.size, 1)
  t.match(personOf('alias-1'), { uuid: personUuid(1, 'user-1'), distinct_ids: ['alias-1', 'user-1'], properties: { a: 'user', b: 'alias' } })
})

t.test('$create_alias without a truthy alias, or to itself, merges nothing', async (t) => {
  const { tables } = memoryTables()
  t.same(processAll(tables, alias('user-1', ''), alias('user-1', 0), alias('user-1', 'user-1')).map((r) => r.merge), [null, null, 'same_id'])
})

t.test('without person processing no person is created, and a later person takes the same UUID', async (t) => {
  const { tables, personOf, persons } = memoryTables()
  t.same(processAll(tables, captured('$pageview', 'anon', { properties: { $process_person_profile: false } })), [{ person: 'personless', merge: null }])
  t.equal(persons.size, 0)
  processAll(tables, pageview('anon'))
  t.equal(personOf('anon')!.uuid, personUuid(1, 'anon'))
})

t.test('an existing person is left alone by events without person processing', async (t) => {
  const { tables, personOf, persons } = memoryTables()
  processAll(tables, pageview('alice', { a: 1 }))
  const before = persons.get(personOf('alice')!.uuid)
  processAll(tables, captured('$pageview', 'alice', { properties: { $process_person_profile: false, $set: { a: 2 } } }))
  t.equal(persons.get(personOf('alice')!.uuid), before, 'the stored record is the same object: not rewritten')
})

t.test('$exception and $$heatmap never create or update persons', async (t) => {
  const { tables, persons } = memoryTables()
  t.same(processAll(tables, captured('$exception', 'a', { set: { x: 1 } }), captured('$$heatmap', 'a')).map((r) => r.person), ['skipped', 'skipped'])
  t.equal(persons.size, 0)
})

t.test('$groupidentify person $set is not applied to persons', async (t) => {
  const { tables, personOf } = memoryTables()
  processAll(tables, captured('$groupidentify', 'alice', { properties: { $group_type: 'company', $group_key: 'acme', $set: { a: 1 } } }))
  t.same(Object.keys(personOf('alice')!.properties), ['$creator_event_uuid'])
})

t.test('an ordinary event refreshing only automatic properties does not write the person', async (t) => {
  const { tables, personOf } = memoryTables()
  const url = (u: string) => captured('$pageview', 'alice', { properties: { $current_url: u } })
  processAll(tables, url('https://a.test/1'))
  const result = processAll(tables, url('https://a.test/2'))
  t.same(result.map((r) => r.person), ['unchanged'])
  t.equal(personOf('alice')!.properties['$current_url'], 'https://a.test/1')
  processAll(tables, captured('$set', 'alice', { properties: { $current_url: 'https://a.test/3' } }))
  t.match(personOf('alice'), { properties: { $current_url: 'https://a.test/3' }, version: 1 })
})
