import t from 'tap'
import { event } from '../projections/support/captured.js'
import { apiWorld } from './support/api.js'

const identifyGroup = (type: string, key: string, set: Record<string, unknown>, timestamp?: string) =>
  event('$groupidentify', `$${type}_${key}`, { properties: { $group_type: type, $group_key: key, $group_set: set }, ...(timestamp ? { timestamp } : {}) })

t.test('groups of a type are listed newest first in PostHog\'s shape', async (t) => {
  const api = await apiWorld(t)
  await api.ingest([
    event('$pageview', 'u', { properties: { $groups: { team: 't1' } } }),
    identifyGroup('company', 'acme', { name: 'Acme', size: 5 }, '2024-05-01T00:00:00.000Z'),
    identifyGroup('company', 'globex', { name: 'Globex' }, '2024-05-03T00:00:00.123Z'),
    identifyGroup('company', 'acme', { size: 6 }, '2024-05-04T00:00:00.000Z'),
  ])
  const response = await api.get('/groups/?group_type_index=1')
  t.equal(response.statusCode, 200)
  t.same(response.json().results, [
    { group_type_index: 1, group_key: 'globex', group_properties: { name: 'Globex' }, created_at: '2024-05-03T00:00:00.123000Z' },
    { group_type_index: 1, group_key: 'acme', group_properties: { name: 'Acme', size: 6 }, created_at: '2024-05-01T00:00:00Z' },
  ])
  t.equal(response.json().count, 2)
  t.same((await api.get('/groups/?group_type_index=1&group_key=acme')).json().results.map((g: { group_key: string }) => g.group_key), ['acme'])
  t.same((await api.get('/groups/?group_type_index=1&search=glob')).json().results.map((g: { group_key: string }) => g.group_key), ['globex'])
  t.equal((await api.get('/groups/?group_type_index=0')).json().count, 0, '$groups alone creates no group')
})

t.test('one group is found by type index and key', async (t) => {
  const api = await apiWorld(t)
  await api.ingest([identifyGroup('company', 'acme', { name: 'Acme' })])
  const found = await api.get('/groups/find/?group_type_index=0&group_key=acme')
  t.equal(found.statusCode, 200)
  t.match(found.json(), { group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme' } })
  t.equal((await api.get('/groups/find/?group_type_index=0&group_key=nope')).statusCode, 404)
})

t.test('the group type index is required and must be an integer', async (t) => {
  const api = await apiWorld(t)
  const missing = await api.get('/groups/')
  t.equal(missing.statusCode, 400)
  t.match(missing.json(), { type: 'validation_error', attr: 'group_type_index', detail: /You must pass \?group_type_index=/ })
  const wrong = await api.get('/groups/?group_type_index=abc')
  t.equal(wrong.statusCode, 400)
  t.equal(wrong.json().attr, 'group_type_index')
})

t.test('group types are listed by index, at most five', async (t) => {
  const api = await apiWorld(t)
  await api.ingest([event('$pageview', 'u', {
    timestamp: '2024-05-01T00:00:00.000Z',
    properties: { $groups: { a: '1', b: '1', c: '1', d: '1', e: '1', f: '1' } },
  })])
  const types = (await api.get('/groups_types/')).json()
  t.same(types.map((type: { group_type: string; group_type_index: number }) => [type.group_type, type.group_type_index]), [['a', 0], ['b', 1], ['c', 2], ['d', 3], ['e', 4]])
  t.same(types[0], { group_type: 'a', group_type_index: 0, name_singular: null, name_plural: null, detail_dashboard: null, default_columns: null, created_at: '2024-05-01T00:00:00Z' })
})

t.test('the groups API needs group:read', async (t) => {
  const api = await apiWorld(t)
  t.equal((await api.app.inject({ method: 'GET', url: `/api/projects/${api.environmentId}/groups/?group_type_index=0` })).statusCode, 401)
  const narrow = await api.issueKey(['person:read'])
  for (const path of ['/groups/?group_type_index=0', '/groups/find/?group_type_index=0&group_key=a', '/groups_types/']) {
    const denied = await api.get(path, api.bearer(narrow.value))
    t.equal(denied.statusCode, 403, path)
    t.equal(denied.json().detail, "API key missing required scope 'group:read'")
  }
  const foreign = await api.foreignEnvironment()
  t.equal((await api.app.inject({ method: 'GET', url: `/api/environments/${foreign}/groups_types/`, headers: api.headers })).statusCode, 403)
})
