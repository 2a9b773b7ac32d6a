import t from 'tap'
import { digestProjection } from '../../projections/digest.js'
import { capture, event } from './support/captured.js'
import { capturedProjectors, capturedWorld } from './support/stores.js'

/** A mixed history: merges, aliases, personless use, groups, sessions, a repeated uuid, two environments. */
const history = () => {
  const repeated = event('bought', 'user-3', { properties: { $session_id: 's3', amount: 1 } })
  return [
    [event('$pageview', 'anon-1', { properties: { $session_id: 's1', $current_url: 'https://a.test/', utm_source: 'google', $browser: 'Firefox' } })],
    [event('$identify', 'user-1', { properties: { $anon_distinct_id: 'anon-1', $session_id: 's1' }, set: { email: 'u1@x.test' } }),
      event('$pageview', 'anon-2', { properties: { $process_person_profile: false, $session_id: 's2' } })],
    [event('$identify', 'user-2', { properties: { $anon_distinct_id: 'anon-2' } }), event('$create_alias', 'user-2', { properties: { alias: 'alias-2' } })],
    [event('$pageview', 'user-3', { set: { a: 1 }, properties: { $groups: { company: 'acme', team: 't' } } }),
      event('$groupidentify', 'user-3', { properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } } })],
    [repeated, event('$merge_dangerously', 'user-1', { properties: { alias: 'user-3' } })],
    [{ ...repeated, properties: { ...repeated.properties, amount: 2 } }, event('$identify', 'user-2', { properties: { $anon_distinct_id: 'user-1' } })],
  ]
}

t.test('rebuilding the captured-event read models gives identical digests', async (t) => {
  const { log, models, projections, registry, store } = await capturedWorld(t)
  for (const environmentId of [1, 2]) for (const events of history()) await capture(log, environmentId, events)
  const head = (await log.headPosition())!
  t.ok(await models.waitFor(head, ['persons', 'groups', 'sessions', 'events'], 10_000))
  for (const projector of capturedProjectors) {
    const original = await digestProjection(store, projector, (await registry.read(projector.name))!.active)
    await projections.rebuild(projector.name)
    const rebuilt = await digestProjection(store, projector, (await registry.read(projector.name))!.active)
    t.equal(rebuilt.sha256, original.sha256, `${projector.name} rebuilt the same`)
    t.ok(Object.values(original.collections).some((collection) => collection.count > 0), `${projector.name} holds documents`)
  }
  t.equal(await models.count('persons', { environment_id: 1 }), 2, 'merges left two persons')
  t.equal(await models.count('events', { environment_id: 1 }), 10, 'the repeated uuid counts once')
})
