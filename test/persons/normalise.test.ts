import t from 'tap'
import { normaliseEvent } from '../../src/persons/normalise.js'
import { captured, normalised } from './support/tables.js'

t.test('top-level $set and $set_once join the properties, the top-level keys winning', async (t) => {
  const event = normalised(captured('signed up', 'u1', {
    properties: { $set: { plan: 'free', name: 'old' }, $set_once: { first: 'a', source: 'x' } },
    set: { name: 'new' },
    set_once: { source: 'y' },
  }))
  t.same(event.properties['$set'], { plan: 'free', name: 'new' })
  t.same(event.properties['$set_once'], { first: 'a', source: 'y' })
})

t.test('$ip comes from the capture address unless the event has one; $sent_at from sent_at', async (t) => {
  const filled = normalised(captured('e', 'u1', { ip: '10.1.1.1', sent_at: '2024-01-01T00:00:00.000Z' }))
  t.equal(filled.properties['$ip'], '10.1.1.1')
  t.equal(filled.properties['$sent_at'], '2024-01-01T00:00:00.000Z')
  const kept = normalised(captured('e', 'u1', { ip: '10.1.1.1', properties: { $ip: '192.168.0.9' } }))
  t.equal(kept.properties['$ip'], '192.168.0.9')
  t.notOk(Object.hasOwn(kept.properties, '$sent_at'))
})

t.test('browser, URL and UTM properties are lifted into $set and, as $initial_, into $set_once', async (t) => {
  const event = normalised(captured('$pageview', 'u1', {
    properties: { $browser: 'Firefox', $current_url: 'https://a.test/x', utm_source: 'news', gclid: 'g1', $lib: 'web', $set: { $browser: 'Chrome' } },
  }))
  t.same(event.properties['$set'], { $browser: 'Chrome', $current_url: 'https://a.test/x', utm_source: 'news', gclid: 'g1' })
  t.same(event.properties['$set_once'], {
    $initial_browser: 'Firefox', $initial_current_url: 'https://a.test/x', $initial_utm_source: 'news', $initial_gclid: 'g1',
  })
})

t.test('nothing is lifted from $snapshot or $performance_event, and $os is not lifted from servers', async (t) => {
  for (const name of ['$snapshot', '$performance_event']) {
    t.notOk(Object.hasOwn(normalised(captured(name, 'u1', { properties: { $browser: 'Firefox' } })).properties, '$set'), name)
  }
  const server = normalised(captured('e', 'u1', { properties: { $is_server: true, $os: 'Linux', $os_version: '6', $browser: 'x' } }))
  t.same(server.properties['$set'], { $browser: 'x' })
})

t.test('a distinct id over 400 characters drops the event; NUL becomes U+FFFD', async (t) => {
  t.equal(normaliseEvent(captured('e', 'x'.repeat(401))), null)
  t.equal(normalised(captured('e', 'x'.repeat(400))).distinctId.length, 400)
  t.equal(normalised(captured('e', 'a\0b')).distinctId, 'a\uFFFDb')
})

t.test('$process_person_profile false drops identity events and strips person updates', async (t) => {
  for (const name of ['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']) {
    t.equal(normaliseEvent(captured(name, 'u1', { properties: { $process_person_profile: false } })), null, name)
  }
  const event = normalised(captured('$pageview', 'u1', {
    properties: { $process_person_profile: false, $set: { a: 1 }, $set_once: { b: 2 }, $unset: ['c'], $browser: 'Safari' },
    set: { d: 4 },
  }))
  t.equal(event.processPerson, false)
  t.equal(event.properties['$process_person_profile'], false)
  for (const key of ['$set', '$set_once', '$unset']) t.notOk(Object.hasOwn(event.properties, key), key)
})

t.test('only a boolean false disables person processing; otherwise the flag is removed', async (t) => {
  for (const value of [true, 'false', 0, null]) {
    const event = normalised(captured('e', 'u1', { properties: { $process_person_profile: value } }))
    t.equal(event.processPerson, true, String(value))
    t.notOk(Object.hasOwn(event.properties, '$process_person_profile'), String(value))
  }
})

t.test('a $groupidentify whose $group_set is not an object is dropped', async (t) => {
  for (const groupSet of ['text', 5, [1]]) {
    t.equal(normaliseEvent(captured('$groupidentify', 'u1', { properties: { $group_type: 'company', $group_key: 'a', $group_set: groupSet } })), null)
  }
  t.ok(normaliseEvent(captured('$groupidentify', 'u1', { properties: { $group_type: 'company', $group_key: 'a' } })))
})

t.test('normalisation never changes the captured record and lower-cases the uuid', async (t) => {
  const record = captured('$pageview', 'u1', { uuid: '0190AAAA-0000-7000-8000-00000000000A', properties: { $browser: 'Edge' }, set: { a: 1 } })
  const copy = structuredClone(record)
  const event = normalised(record)
  t.same(record, copy)
  t.equal(event.uuid, '0190aaaa-0000-7000-8000-00000000000a')
})

t.test('a timestamp that is not ISO is read; an unreadable one falls back to the receive time', async (t) => {
  t.equal(normalised(captured('e', 'u1', { timestamp: '2024-03-01T10:00:00+02:00' })).timestamp, '2024-03-01T08:00:00.000Z')
  const record = captured('e', 'u1', { timestamp: 'garbage' })
  t.equal(normalised(record).timestamp, record.now)
})
