import t, { type Test } from 'tap'
import type { JsonObject } from '../../src/eventlog/port.js'
import type { FindQuery } from '../../src/readstore/port.js'
import { client } from '../support/client.js'
import { world } from '../support/world.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`
  return { ...w, api, base }
}

/** Records what the read store is asked for dashboards, and what it answers. */
const spyOnDashboards = (store: Awaited<ReturnType<typeof world>>['store']) => {
  const calls: { query: FindQuery | undefined; docs: JsonObject[] }[] = []
  const find = store.find.bind(store)
  store.find = async <T extends JsonObject>(collection: string, query?: FindQuery) => {
    const docs = await find<T>(collection, query)
    if (collection.startsWith('dashboards')) calls.push({ query, docs })
    return docs
  }
  return calls
}

t.test('the store pages the list: limit and offset go into its query, with the total count and PostHog\'s links', async (t) => {
  const { api, base, store } = await setup(t)
  for (const name of ['e', 'd', 'c', 'b', 'a']) await api.post(base, { name })
  const calls = spyOnDashboards(store)
  const page = await api.get(`${base}?offset=2&limit=2`)
  t.equal(page.status, 200)
  t.equal(page.body.count, 5)
  t.same(page.body.results.map((d: { name: string }) => d.name), ['c', 'd'])
  t.equal(page.body.next, `http://localhost${base}?limit=2&offset=4`)
  t.equal(page.body.previous, `http://localhost${base}?limit=2`)
  t.match(calls.map((call) => call.query), [{ limit: 2, offset: 2 }])
  t.equal(calls[0]?.docs.length, 2, 'the store answers with the page alone')
  const last = await api.get(`${base}?limit=2&offset=4`)
  t.same(last.body.results.map((d: { name: string }) => d.name), ['e'])
  t.equal(last.body.next, null)
})

t.test('pages read from the store keep the order: pinned first, then names as locale collation orders them, then ids', async (t) => {
  const { api, base, store } = await setup(t)
  const names = ['b', 'B', 'a', 'Á', 'á', '_x', 'x y', 'xy', '10', '9', 'Zeta', 'alpha', 'Émile', 'emile', 'same', 'same', '']
  for (const name of names) await api.post(base, { name })
  await api.post(base, { name: 'zz pinned', pinned: true })
  const calls = spyOnDashboards(store)
  const listed: { id: number; name: string }[] = []
  for (let offset = 0; offset < names.length + 1; offset += 3) listed.push(...(await api.get(`${base}?limit=3&offset=${offset}`)).body.results)
  t.ok(calls.length > 0 && calls.every((call) => call.query?.limit === 3), 'every page is a store query of three')
  t.same(listed.map((d) => d.name), ['zz pinned', ...[...names].sort((a, b) => a.localeCompare(b))])
  const same = listed.filter((d) => d.name === 'same').map((d) => d.id)
  t.ok(same[0]! < same[1]!, 'equal names in id order')
})

t.test('tags and creation mode narrow the list and its count in the store query', async (t) => {
  const { api, base, store } = await setup(t)
  await api.post(base, { name: 'one', tags: ['growth'] })
  await api.post(base, { name: 'two', tags: ['growth', 'ops'] })
  await api.post(base, { name: 'three' })
  await api.post(base, { use_template: 'DEFAULT_APP', tags: ['growth'] })
  const calls = spyOnDashboards(store)
  const growth = await api.get(`${base}?tags=Growth&limit=1`)
  t.equal(growth.body.count, 3)
  t.equal(growth.body.results.length, 1)
  t.match(calls[0]?.query, { contains: { tags: 'growth' }, limit: 1 })
  const templated = await api.get(`${base}?tags=growth&creation_mode=template`)
  t.same(templated.body.results.map((d: { name: string }) => d.name), ['Product analytics'])
  t.equal(templated.body.count, 1)
  t.match(calls[1]?.query, { where: { creation_mode: 'template' }, contains: { tags: 'growth' } })
})

t.test('the list asks the store for one page of summaries, never for whole dashboards', async (t) => {
  const { api, base, store } = await setup(t)
  const big = await api.post(base, { name: 'big' })
  const body = 'x'.repeat(4000)
  t.equal((await api.patch(`${base}${big.body.id}/`, { tiles: Array.from({ length: 100 }, () => ({ text: { body } })) })).status, 200)
  for (const name of ['a', 'b', 'c']) await api.post(base, { name })
  const calls = spyOnDashboards(store)
  const list = await api.get(`${base}?limit=2`)
  t.equal(list.body.count, 4)
  t.equal(calls.length, 1, 'one read of the dashboards')
  const [call] = calls
  t.equal(call?.query?.limit, 2, 'the store applies the page size')
  t.equal(call?.query?.offset, 0)
  t.ok(call?.query?.fields && !call.query.fields.some((field) => field.startsWith('tiles') || field.startsWith('filters')), 'only summary fields are asked for')
  t.equal(call?.docs.length, 2)
  for (const doc of call?.docs ?? []) t.notOk('tiles' in doc, 'no tiles come back from the store')
  t.ok(list.raw.length < 4000, `the response stays small (${list.raw.length} bytes)`)
})
