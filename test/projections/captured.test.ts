import t from 'tap'
import { personUuid } from '../../src/persons/person-uuid.js'
import { personForDistinctId, personPropertiesFor, groupPropertiesFor, groupTypeIndexFor, groupTypesFor } from '../../src/persons/read.js'
import { captureAndSettle, event } from './support/captured.js'
import { capturedWorld } from './support/stores.js'

t.test('persons and their distinct ids are kept per environment, keyed for direct reads', async (t) => {
  const { log, models } = await capturedWorld(t)
  const first = event('$pageview', 'anon-1', { set: { plan: 'free' } })
  await captureAndSettle(log, models, 3, [first, event('$identify', 'alice', { properties: { $anon_distinct_id: 'anon-1' }, set: { email: 'a@x.test' } })])
  await captureAndSettle(log, models, 4, [event('$pageview', 'alice', { set: { plan: 'other' } })])
  const uuid = personUuid(3, 'anon-1')
  t.same(await models.get('person_distinct_ids', '3:alice'), { environment_id: 3, distinct_id: 'alice', person_id: uuid, page: 0 })
  t.match(await models.get('persons', `3:${uuid}`), {
    id: 1, uuid, environment_id: 3, distinct_ids: ['anon-1', 'alice'], first_page: 0, last_page: 0, is_identified: true, created_at: first.timestamp,
    properties: { plan: 'free', email: 'a@x.test', $creator_event_uuid: first.uuid },
  })
  t.equal(await models.get('person_distinct_id_pages', `3:${uuid}:1`), null, 'ids that fit in the person have no page documents')
  t.match(await personPropertiesFor(models, 3, 'alice'), { plan: 'free', email: 'a@x.test' })
  t.match(await personPropertiesFor(models, 4, 'alice'), { plan: 'other' })
  t.equal((await personForDistinctId(models, 4, 'alice'))!.id, 1, 'integer ids count per environment')
  t.equal(await personPropertiesFor(models, 3, 'nobody'), null)
})

t.test('a property set by an event is readable once the position is applied, in arrival order', async (t) => {
  const { log, models } = await capturedWorld(t)
  await captureAndSettle(log, models, 1, [event('$set', 'u', { set: { tier: 'gold' }, timestamp: '2024-05-02T00:00:00.000Z' })])
  await captureAndSettle(log, models, 1, [event('$set', 'u', { set: { tier: 'silver' }, timestamp: '2024-05-01T00:00:00.000Z' })])
  t.match(await personPropertiesFor(models, 1, 'u'), { tier: 'silver' }, 'a later arrival wins even with an older timestamp')
})

t.test('without person processing no person exists, and the distinct id is remembered', async (t) => {
  const { log, models } = await capturedWorld(t)
  await captureAndSettle(log, models, 1, [event('$pageview', 'ghost', { properties: { $process_person_profile: false, $groups: { company: 'a' } } })])
  t.equal(await personForDistinctId(models, 1, 'ghost'), null)
  t.same(await models.get('person_distinct_ids', '1:ghost'), { environment_id: 1, distinct_id: 'ghost', person_id: null })
  t.same(await groupTypesFor(models, 1), [], 'groups are not processed either')
  t.equal(await models.count('events', { environment_id: 1 }), 1, 'the event itself is stored')
})

t.test('an event captured twice with the same uuid is stored once, the later copy winning', async (t) => {
  const { log, models } = await capturedWorld(t)
  const original = event('bought', 'u', { properties: { amount: 1 } })
  await captureAndSettle(log, models, 1, [original])
  await captureAndSettle(log, models, 1, [{ ...original, properties: { amount: 2 } }, event('bought', 'u')])
  t.equal(await models.count('events', { environment_id: 1 }), 2)
  t.match(await models.get('events', `1:${original.uuid}`), { event: 'bought', distinct_id: 'u', properties: { amount: 2 } })
})

t.test('dropped events reach no read model', async (t) => {
  const { log, models } = await capturedWorld(t)
  await captureAndSettle(log, models, 1, [
    event('$identify', 'a', { properties: { $process_person_profile: false, $anon_distinct_id: 'b', $session_id: 's' } }),
    event('$groupidentify', 'a', { properties: { $group_type: 'company', $group_key: 'k', $group_set: 'bad', $session_id: 's' } }),
    event('e', 'x'.repeat(401), { properties: { $session_id: 's' } }),
  ])
  t.equal(await models.count('events', { environment_id: 1 }), 0)
  t.equal(await models.count('sessions', { environment_id: 1 }), 0)
  t.equal(await models.count('persons', { environment_id: 1 }), 0)
  t.same(await groupTypesFor(models, 1), [])
})

t.test('groups and group types are kept per environment', async (t) => {
  const { log, models } = await capturedWorld(t)
  const identify = event('$groupidentify', '$company_acme', { properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } } })
  await captureAndSettle(log, models, 1, [
    event('$pageview', 'u', { properties: { $groups: { team: 't1' } } }),
    identify,
    event('$groupidentify', 'u', { properties: { $group_type: 'company', $group_key: 'acme', $group_set: { size: 10 } } }),
  ])
  t.same((await groupTypesFor(models, 1)).map((type) => [type.group_type, type.group_type_index]), [['team', 0], ['company', 1]])
  t.equal(await groupTypeIndexFor(models, 1, 'company'), 1)
  t.equal(await groupTypeIndexFor(models, 1, 'unknown'), null)
  t.same(await groupPropertiesFor(models, 1, 1, 'acme'), { name: 'Acme', size: 10 })
  t.match(await models.get('groups', '1:1:acme'), { environment_id: 1, group_type_index: 1, group_key: 'acme', created_at: identify.timestamp })
  t.equal(await groupPropertiesFor(models, 2, 1, 'acme'), null)
})

t.test('sessions gather their events and the values seen on them', async (t) => {
  const { log, models } = await capturedWorld(t)
  await captureAndSettle(log, models, 1, [
    event('$pageview', 'd1', { properties: { $session_id: 's1', utm_source: 'google', $current_url: 'https://a.test/x' } }),
    event('$pageview', 'd1', { properties: { $session_id: 's1', utm_source: 'youtube' } }),
    event('$pageview', 'd1', { properties: { utm_source: 'no-session' } }),
  ])
  t.match(await models.get('sessions', '1:s1'), { session_id: 's1', pageview_count: 2, entry: { utm_source: ['google'] } })
  const values = await models.find('session_values', { where: { environment_id: 1, source: 'utm_source' }, orderBy: [['value', 'asc']] })
  t.same(values.map((v) => v['value']), ['google', 'youtube'])
})
