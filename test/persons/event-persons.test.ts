import t from 'tap'
import { personUuid } from '../../src/persons/person-uuid.js'
import { eventPersonKey, personVersionKey } from '../../src/persons/records.js'
import { event } from '../projections/support/captured.js'
import { apiWorld } from './support/api.js'

const ANON = '01900000-aaaa-7bbb-8ccc-0000000000e1'

t.test('each event keeps the person it belonged to and that person\'s properties then, through a merge', async (t) => {
  const api = await apiWorld(t)
  const env = api.environmentId
  const first = event('$pageview', ANON, { timestamp: '2024-05-01T10:00:00.000Z', set: { plan: 'free' } })
  const second = event('$pageview', ANON, { timestamp: '2024-05-01T10:05:00.000Z' })
  const bob = event('$pageview', 'bob', { timestamp: '2024-05-01T11:00:00.000Z', set: { plan: 'team' } })
  const merge = event('$merge_dangerously', 'bob', { timestamp: '2024-05-02T00:00:00.000Z', properties: { alias: ANON }, set: { email: 'b@x.test' } })
  const after = event('$pageview', ANON, { timestamp: '2024-05-03T00:00:00.000Z', set: { plan: 'enterprise' } })
  const personless = event('$pageview', 'ghost', { timestamp: '2024-05-03T00:00:00.000Z', properties: { $process_person_profile: false } })
  await api.ingest([first, second, bob, merge, after, personless])

  const at = async (captured: { uuid: string; distinct_id: string }) => {
    const link = await api.models.get('event_persons', eventPersonKey(env, captured.uuid, captured.distinct_id))
    if (!link) return null
    const version = await api.models.get('person_versions', personVersionKey(env, link.person_id, link.version))
    return { person: link.person_id, properties: version?.properties }
  }
  const anonPerson = personUuid(env, ANON)
  const bobPerson = personUuid(env, 'bob')
  t.match(await at(first), { person: anonPerson, properties: { plan: 'free' } })
  t.match(await at(second), { person: anonPerson, properties: { plan: 'free' } }, 'an event that changes nothing sees the same version')
  t.match(await at(bob), { person: bobPerson, properties: { plan: 'team' } })
  const merged = await at(merge)
  t.ok(merged, 'the merge event has its person')
  t.match(merged!.properties, { email: 'b@x.test' }, 'the merge event sees its own $set')
  t.match(await at(after), { person: merged!.person, properties: { plan: 'enterprise', email: 'b@x.test' } }, 'after the merge: the merged person')
  t.equal(await at(personless), null, 'a personless event has no person')

  const mapping = await api.models.get('person_distinct_ids', `${env}:${ANON}`)
  t.equal(mapping?.person_id, merged!.person, 'the anonymous id now maps to the merged person')
  const gone = merged!.person === anonPerson ? bobPerson : anonPerson
  t.equal(await api.models.get('persons', `${env}:${gone}`), null, 'the other person is gone')
  t.match(await at(first), { person: anonPerson, properties: { plan: 'free' } }, 'and the first event still reads what its person held then')
})
