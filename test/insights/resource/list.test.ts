import t, { type Test } from 'tap'
import { client } from '../../support/client.js'
import { insightsWorld } from './support/insights-world.js'
import { addMember } from '../../support/members.js'

const viz = (source: string) => ({ kind: 'InsightVizNode', source: { kind: source, series: [] } })

const setup = async (t: Test) => {
  const w = await insightsWorld(t)
  const names = async (query = '') => ((await w.api.get(`${w.base}${query}`)).body.results as { name: string }[]).map((i) => i.name)
  return { ...w, names }
}

t.test('the list pages with limit and offset and absolute links, in `order` then id', async (t) => {
  const { api, base } = await setup(t)
  for (const name of ['a', 'b', 'c', 'd', 'e']) await api.post(base, { name })
  const first = await api.get(`${base}?limit=2`)
  t.equal(first.status, 200)
  t.equal(first.body.count, 5)
  t.same(first.body.results.map((i: { name: string }) => i.name), ['a', 'b'])
  t.equal(first.body.next, `http://localhost${base}?limit=2&offset=2`)
  t.equal(first.body.previous, null)
  const last = await api.get(`${base}?limit=2&offset=4`)
  t.same(last.body.results.map((i: { name: string }) => i.name), ['e'])
  t.equal(last.body.previous, `http://localhost${base}?limit=2&offset=2`)
  t.equal((await api.get(`${base}?limit=0&offset=-1`)).body.results.length, 5, 'a limit that is not positive means 100')
})

t.test('?order= sorts by a field, descending with a leading minus; an unknown field is a 400', async (t) => {
  const { api, base, names } = await setup(t)
  await api.post(base, { name: 'beta', order: 2 })
  await api.post(base, { name: 'Alpha', order: 3 })
  await api.post(base, { name: 'gamma', order: 1 })
  await api.post(base, { name: 'delta' })
  t.same(await names(), ['gamma', 'beta', 'Alpha', 'delta'], 'by order, nulls last')
  t.same(await names('?order=name'), ['Alpha', 'beta', 'delta', 'gamma'], 'names as a collation orders them')
  t.same(await names('?order=-order'), ['delta', 'Alpha', 'beta', 'gamma'], 'nulls first going down, as PostgreSQL does')
  t.same(await names('?order=-id'), ['delta', 'gamma', 'Alpha', 'beta'])
  const bad = await api.get(`${base}?order=password`)
  t.equal(bad.status, 400)
  t.match(bad.body, { type: 'validation_error', code: 'invalid_input', attr: 'order' })
})

t.test('?short_id= and ?search= find insights by short id, and by name, derived name, description or tag', async (t) => {
  const { api, base, names } = await setup(t)
  const first = await api.post(base, { name: 'Weekly signups' })
  await api.post(base, { derived_name: 'Pageview count' })
  await api.post(base, { name: 'Churn', description: 'Users who SIGNed off' })
  await api.post(base, { name: 'Tagged', tags: ['signals'] })
  t.same(await names(`?short_id=${first.body.short_id}`), ['Weekly signups'])
  t.same(await names('?short_id=zzzzzzzz'), [])
  t.same(await names('?search=sign'), ['Weekly signups', 'Churn', 'Tagged'], 'case-insensitive, over name, description and tags')
  t.same((await api.get(`${base}?search=PAGEVIEW`)).body.results.map((i: { derived_name: string }) => i.derived_name), ['Pageview count'])
})

t.test('?tags= is a JSON array, any of them; ?favorited and ?user need only be present', async (t) => {
  const { api, base, names, log, models, app, installation, key } = await setup(t)
  await api.post(base, { name: 'one', tags: ['growth'] })
  await api.post(base, { name: 'two', tags: ['retention', 'growth'], favorited: true })
  await api.post(base, { name: 'three', tags: ['other'] })
  t.same(await names('?tags=["growth"]'), ['one', 'two'])
  t.same(await names('?tags=["retention","other"]'), ['two', 'three'])
  t.same(await names('?tags="Other"'), ['three'], 'one tag alone is a list of one')
  t.same(await names('?favorited'), ['two'])
  t.same(await names('?favorited=false'), ['two'], 'presence is what counts, as in PostHog')
  const member = await addMember({ log, models, app, installation, key })
  await client(app, member.headers).post(base, { name: 'theirs' })
  t.same(await names('?user=true'), ['one', 'two', 'three'], 'the caller\'s own')
  t.same(await names(`?created_by=${(await api.get('/api/users/@me/')).body.id}`), ['one', 'two', 'three'])
  const theirs = await client(app, member.headers).get(`${base}?user=1`)
  t.same(theirs.body.results.map((i: { name: string }) => i.name), ['theirs'])
})

t.test('?created_by= takes a user id or a JSON array of them', async (t) => {
  const { api, base, names } = await setup(t)
  await api.post(base, { name: 'mine' })
  const me = (await api.get('/api/users/@me/')).body.id
  t.same(await names(`?created_by=[${me}]`), ['mine'])
  t.same(await names(`?created_by=[${me + 1000}]`), [])
})

t.test('?saved= truthy lists saved insights and those on a dashboard; falsy lists unsaved ones', async (t) => {
  const { api, base, dashboards, names } = await setup(t)
  const board = await api.post(dashboards, { name: 'board' })
  await api.post(base, { name: 'saved', saved: true })
  await api.post(base, { name: 'on a dashboard', dashboards: [board.body.id] })
  await api.post(base, { name: 'draft' })
  t.same(await names('?saved=true'), ['saved', 'on a dashboard'])
  t.same(await names('?saved=1'), ['saved', 'on a dashboard'])
  t.same(await names('?saved=false'), ['on a dashboard', 'draft'])
})

t.test('?dashboards= lists insights on every one of the dashboards named', async (t) => {
  const { api, base, dashboards, names } = await setup(t)
  const a = (await api.post(dashboards, { name: 'a' })).body.id
  const b = (await api.post(dashboards, { name: 'b' })).body.id
  await api.post(base, { name: 'both', dashboards: [a, b] })
  await api.post(base, { name: 'only a', dashboards: [a] })
  await api.post(base, { name: 'neither' })
  t.same(await names(`?dashboards=[${a}]`), ['both', 'only a'])
  t.same(await names(`?dashboards=[${a},${b}]`), ['both'])
  t.same(await names(`?dashboards=${b}`), ['both'], 'one id alone is a list of one')
})

t.test('?insight= filters by kind: the source of a viz node, SQL, JSON, or legacy filters', async (t) => {
  const { api, base, names } = await setup(t)
  await api.post(base, { name: 'trend', query: viz('TrendsQuery') })
  await api.post(base, { name: 'funnel', query: viz('FunnelsQuery') })
  await api.post(base, { name: 'sql', query: { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: 'select 1' } } })
  await api.post(base, { name: 'table', query: { kind: 'DataTableNode', source: { kind: 'EventsQuery', select: ['*'] } } })
  await api.post(base, { name: 'legacy retention', filters: { insight: 'RETENTION' } })
  await api.post(base, { name: 'legacy default' })
  t.same(await names('?insight=TRENDS'), ['trend', 'legacy default'])
  t.same(await names('?insight=funnels'), ['funnel'])
  t.same(await names('?insight=SQL'), ['sql'])
  t.same(await names('?insight=JSON'), ['table'])
  t.same(await names('?insight=RETENTION'), ['legacy retention'])
  t.same(await names('?insight=NOPE'), [], 'an unknown kind matches nothing')
})

t.test('?basic=true lists the light shape, which computes no results', async (t) => {
  const { api, base } = await setup(t)
  await api.post(base, { name: 'light', query: viz('TrendsQuery') })
  const basic = await api.get(`${base}?basic=true`)
  t.same(Object.keys(basic.body.results[0]).sort(), [
    'created_at', 'created_by', 'dashboard_tiles', 'dashboards', 'derived_name', 'description', 'favorited', 'filters', 'id', 'last_modified_at',
    'last_refresh', 'last_viewed_at', 'name', 'query', 'refreshing', 'saved', 'short_id', 'tags', 'updated_at', 'user_access_level',
  ])
  const full = await api.get(base)
  t.ok('result' in full.body.results[0], 'the full shape has results')
  t.ok('filters_hash' in full.body.results[0])
})

t.test('list parameters that are not JSON arrays are refused with 400, never 500', async (t) => {
  const { api, base } = await setup(t)
  for (const [param, value] of [['dashboards', '[1,'], ['dashboards', '["a"]'], ['tags', '[1]'], ['tags', 'growth'], ['created_by', 'me'], ['created_by', '[1.5]']]) {
    const answer = await api.get(`${base}?${param}=${encodeURIComponent(value!)}`)
    t.equal(answer.status, 400, `${param}=${value}`)
    t.match(answer.body, { type: 'validation_error', code: 'invalid_input', attr: param })
  }
})
