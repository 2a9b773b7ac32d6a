import t from 'tap'
import { PAGE_SIZE } from '../../src/persons/distinct-id-pages.js'
import { personUuid } from '../../src/persons/person-uuid.js'
import { event } from '../projections/support/captured.js'
import { apiWorld } from './support/api.js'

const ANON = '01900000-aaaa-7bbb-8ccc-000000000001'

t.test('persons are listed newest first in PostHog\'s shape, paginated', async (t) => {
  const api = await apiWorld(t)
  const first = event('$pageview', ANON, { timestamp: '2024-05-01T10:00:00.000Z', set: { plan: 'free' } })
  await api.ingest([
    first,
    event('$identify', 'alice', { timestamp: '2024-05-01T10:00:01.500Z', properties: { $anon_distinct_id: ANON }, set: { email: 'alice@x.test' } }),
    event('$pageview', 'bob', { timestamp: '2024-05-02T00:00:00.000Z' }),
  ])
  const response = await api.get('/persons/?limit=1')
  t.equal(response.statusCode, 200)
  const body = response.json()
  t.equal(body.count, 2)
  t.equal(body.previous, null)
  t.equal(body.next, `http://localhost/api/projects/${api.environmentId}/persons/?limit=1&offset=1`)
  t.same(body.results.map((p: { name: string }) => p.name), ['bob'])
  const second = (await api.app.inject({ method: 'GET', url: body.next, headers: api.headers })).json()
  t.same(second.results, [{
    id: 1,
    name: 'alice@x.test',
    distinct_ids: ['alice', ANON],
    properties: { plan: 'free', email: 'alice@x.test', $creator_event_uuid: first.uuid },
    created_at: '2024-05-01T10:00:00Z',
    uuid: personUuid(api.environmentId, ANON),
    is_identified: true,
  }])
})

t.test('persons are found by any of their distinct ids, and by email', async (t) => {
  const api = await apiWorld(t)
  await api.ingest([event('$pageview', 'alice', { set: { email: 'a@x.test' } }), event('$create_alias', 'alice', { properties: { alias: 'alice-alias' } })])
  for (const distinctId of ['alice', 'alice-alias']) {
    const body = (await api.get(`/persons/?distinct_id=${distinctId}`)).json()
    t.equal(body.count, 1)
    t.same(body.results[0].distinct_ids, ['alice-alias', 'alice'], 'the alias is listed first')
  }
  t.same((await api.get('/persons/?distinct_id=nobody')).json().results, [])
  t.equal((await api.get('/persons/?email=a@x.test')).json().count, 1)
  t.equal((await api.get('/persons/?email=b@x.test')).json().count, 0)
})

t.test('a person with more distinct ids than one page lists them all, in order, by every route', async (t) => {
  const api = await apiWorld(t)
  const count = 2 * PAGE_SIZE + 7
  // A chain of aliases: each event attaches the next id, then lists its alias first.
  await api.ingest(Array.from({ length: count }, (_, i) => event('$merge_dangerously', `ch${i + 1}`, { properties: { alias: `ch${i}` } })))
  const expected = [...Array.from({ length: count }, (_, i) => `ch${count - 1 - i}`), `ch${count}`]
  const listed = (await api.get(`/persons/?distinct_id=ch${count}`)).json()
  t.equal(listed.count, 1)
  t.same(listed.results[0].distinct_ids, expected)
  t.equal(listed.results[0].name, `ch${count - 1}`)
  const uuid = listed.results[0].uuid
  t.same((await api.get(`/persons/${uuid}/`)).json().distinct_ids, expected)
  t.same((await api.get('/persons/')).json().results[0].distinct_ids, expected)
  const events = (await api.get('/events/?limit=1')).json()
  t.same(events.results[0].person.distinct_ids, [`ch${count - 1}`], 'an event shows the person\'s first id')
})

t.test('a person is read by UUID or by integer id, under both prefixes', async (t) => {
  const api = await apiWorld(t)
  await api.ingest([event('$pageview', 'carol', { set: { name: 'Carol' } })])
  const uuid = personUuid(api.environmentId, 'carol')
  const byUuid = await api.get(`/persons/${uuid}/`)
  t.equal(byUuid.statusCode, 200)
  t.match(byUuid.json(), { id: 1, uuid, name: 'Carol', distinct_ids: ['carol'], is_identified: false })
  const byId = await api.app.inject({ method: 'GET', url: `/api/environments/${api.environmentId}/persons/1/`, headers: api.headers })
  t.same(byId.json(), byUuid.json())
})

t.test('unknown persons are 404 and a distinct id in the path is 400', async (t) => {
  const api = await apiWorld(t)
  const missing = await api.get('/persons/00000000-0000-5000-8000-000000000000/')
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })
  t.equal((await api.get('/persons/42/')).statusCode, 404)
  const wrong = await api.get('/persons/carol/')
  t.equal(wrong.statusCode, 400)
  t.match(wrong.json(), { type: 'validation_error', detail: /use \/persons\?distinct_id=carol instead/ })
})

t.test('without person processing there is no person to list', async (t) => {
  const api = await apiWorld(t)
  await api.ingest([event('$pageview', 'ghost', { properties: { $process_person_profile: false } })])
  t.equal((await api.get('/persons/')).json().count, 0)
})

t.test('the persons API needs person:read and a visible environment', async (t) => {
  const api = await apiWorld(t)
  const anonymous = await api.app.inject({ method: 'GET', url: `/api/projects/${api.environmentId}/persons/` })
  t.equal(anonymous.statusCode, 401)
  t.equal(anonymous.json().code, 'not_authenticated')
  const narrow = await api.issueKey(['group:read'])
  const denied = await api.get('/persons/', api.bearer(narrow.value))
  t.equal(denied.statusCode, 403)
  t.equal(denied.json().detail, "API key missing required scope 'person:read'")
  const writer = await api.issueKey(['person:write'])
  t.equal((await api.get('/persons/', api.bearer(writer.value))).statusCode, 200, 'write implies read')
  const notFound = await api.app.inject({ method: 'GET', url: '/api/projects/abc/persons/', headers: api.headers })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.json().detail, 'Project not found.')
  t.equal((await api.app.inject({ method: 'GET', url: '/api/projects/424242/persons/', headers: api.headers })).statusCode, 404)
  const foreign = await api.foreignEnvironment()
  const forbidden = await api.app.inject({ method: 'GET', url: `/api/projects/${foreign}/persons/`, headers: api.headers })
  t.equal(forbidden.statusCode, 403)
  t.equal(forbidden.json().detail, "You don't have access to the project.")
  t.equal((await api.app.inject({ method: 'GET', url: '/api/projects/@current/persons/', headers: api.headers })).statusCode, 200)
})
