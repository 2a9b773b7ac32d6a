import t from 'tap'
import { event } from '../projections/support/captured.js'
import { apiWorld } from './support/api.js'

const at = (hour: number, ms = 0) => `2024-05-01T${String(hour).padStart(2, '0')}:00:00.${String(ms).padStart(3, '0')}Z`

const history = () => [
  event('$pageview', 'anon-1', { timestamp: at(1), properties: { $current_url: 'https://a.test/' } }),
  event('signed up', 'alice', { timestamp: at(2, 250), properties: { plan: 'pro' } }),
  event('$pageview', 'alice', { timestamp: at(3) }),
  event('$pageview', 'bob', { timestamp: at(4) }),
]

t.test('events are listed newest first in PostHog\'s shape', async (t) => {
  const api = await apiWorld(t)
  const events = history()
  await api.ingest([...events, event('$identify', 'alice', { timestamp: at(0), properties: { $anon_distinct_id: 'anon-1' }, set: { email: 'a@x.test', other: 1 } })])
  const body = (await api.get('/events/')).json()
  t.equal(body.count, 5)
  t.same(body.results.map((e: { event: string }) => e.event), ['$pageview', '$pageview', 'signed up', '$pageview', '$identify'])
  const signedUp = body.results[2]
  t.same(Object.keys(signedUp), ['id', 'distinct_id', 'properties', 'event', 'timestamp', 'person', 'elements', 'elements_chain'])
  t.match(signedUp, {
    id: events[1]!.uuid, distinct_id: 'alice', event: 'signed up', timestamp: '2024-05-01T02:00:00.250000+00:00',
    properties: { plan: 'pro', $ip: '127.0.0.1' }, elements: [], elements_chain: '',
  })
  t.same(signedUp.person, { is_identified: true, distinct_ids: ['alice'], properties: { email: 'a@x.test' } })
  t.equal(body.results[0].person.distinct_ids.length, 1)
  t.equal(body.results[3].timestamp, '2024-05-01T01:00:00+00:00')
})

t.test('events are filtered by name, distinct id and time, and paginated', async (t) => {
  const api = await apiWorld(t)
  await api.ingest(history())
  const names = async (query: string) => (await api.get(`/events/${query}`)).json().results.map((e: { distinct_id: string; event: string }) => `${e.event}/${e.distinct_id}`)
  t.same(await names('?event=$pageview'), ['$pageview/bob', '$pageview/alice', '$pageview/anon-1'])
  t.same(await names('?distinct_id=alice'), ['$pageview/alice', 'signed up/alice'])
  t.same(await names('?event=$pageview&distinct_id=alice'), ['$pageview/alice'])
  t.same(await names(`?after=${at(2, 250)}`), ['$pageview/bob', '$pageview/alice'], 'after is exclusive')
  t.same(await names(`?before=${at(3)}`), ['signed up/alice', '$pageview/anon-1'], 'before is exclusive')
  t.same(await names('?after=2024-05-01T01:30:00&before=2024-05-01T03:30:00'), ['$pageview/alice', 'signed up/alice'], 'times without a zone are UTC')
  t.same(await names('?after=2024-05-02'), [])
  const page = (await api.get(`/events/?before=${at(4)}&limit=2&offset=1`)).json()
  t.equal(page.count, 3)
  t.same(page.results.map((e: { event: string }) => e.event), ['signed up', '$pageview'])
  t.equal(page.next, null)
  t.match(page.previous, /limit=2/)
  const bad = await api.get('/events/?after=yesterday-ish')
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().attr, 'after')
})

t.test('an event captured twice is listed once', async (t) => {
  const api = await apiWorld(t)
  const once = event('bought', 'alice', { properties: { amount: 1 } })
  await api.ingest([once])
  await api.ingest([once])
  const body = (await api.get('/events/?event=bought')).json()
  t.equal(body.count, 1)
  t.equal(body.results[0].id, once.uuid)
})

t.test('group types appear as $group_<index>; elements come from the chain', async (t) => {
  const api = await apiWorld(t)
  const clicked = event('$autocapture', 'u', {
    properties: { $groups: { company: 'acme' }, $elements: [{ tag_name: 'button', $el_text: 'Go', nth_child: 1, nth_of_type: 1 }] },
  })
  const personless = event('$pageview', 'ghost', { properties: { $groups: { company: 'acme' }, $process_person_profile: false } })
  await api.ingest([clicked, personless])
  const shaped = (await api.get(`/events/${clicked.uuid}/`)).json()
  t.equal(shaped.properties.$group_0, 'acme')
  t.notOk('$elements' in shaped.properties)
  t.equal(shaped.elements_chain, 'button:nth-child="1"nth-of-type="1"text="Go"')
  t.match(shaped.elements, [{ tag_name: 'button', text: 'Go', nth_child: 1, nth_of_type: 1, order: 0 }])
  const ghost = (await api.get(`/events/${personless.uuid}/`)).json()
  t.notOk('$group_0' in ghost.properties, 'events without person processing are not tied to groups')
  t.equal(ghost.person, null)
})

t.test('one event is read by UUID; a bad UUID is 400 and an unknown one 404', async (t) => {
  const api = await apiWorld(t)
  const one = event('x', 'u')
  await api.ingest([one])
  t.equal((await api.get(`/events/${one.uuid.toUpperCase()}/`)).json().id, one.uuid)
  const bad = await api.get('/events/not-a-uuid/')
  t.equal(bad.statusCode, 400)
  t.equal(bad.json().detail, 'Invalid UUID')
  const missing = await api.get('/events/00000000-0000-7000-8000-000000000000/')
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().detail, 'No events exist for event UUID 00000000-0000-7000-8000-000000000000')
})

t.test('the events API needs query:read', async (t) => {
  const api = await apiWorld(t)
  t.equal((await api.app.inject({ method: 'GET', url: `/api/projects/${api.environmentId}/events/` })).statusCode, 401)
  const narrow = await api.issueKey(['person:read'])
  const denied = await api.get('/events/', api.bearer(narrow.value))
  t.equal(denied.statusCode, 403)
  t.equal(denied.json().detail, "API key missing required scope 'query:read'")
  const foreign = await api.foreignEnvironment()
  t.equal((await api.app.inject({ method: 'GET', url: `/api/projects/${foreign}/events/`, headers: api.headers })).statusCode, 403)
})
