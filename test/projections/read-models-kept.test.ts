import t from 'tap'
import { world } from '../support/world.js'

t.test('documents are kept in memory while their projection stands still, and a write is read at once', async (t) => {
  const w = await world(t)
  const api = { headers: w.bearer(w.key.value) }
  const pid = w.installation.project_id
  const made = (await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, ...api, payload: { name: 'first' } })).json() as { id: number }
  let storeReads = 0
  const get = w.store.get.bind(w.store)
  w.store.get = (async (collection: string, id: string) => {
    if (collection.startsWith('dashboards')) storeReads++
    return get(collection, id)
  }) as typeof w.store.get

  for (let i = 0; i < 5; i++) t.equal((await w.app.inject({ method: 'GET', url: `/api/projects/${pid}/dashboards/${made.id}/`, ...api })).json().name, 'first')
  t.ok(storeReads <= 1, `five reads, ${storeReads} from the store`)

  const renamed = await w.app.inject({ method: 'PATCH', url: `/api/projects/${pid}/dashboards/${made.id}/`, ...api, payload: { name: 'second' } })
  t.equal(renamed.json().name, 'second', 'the write answers with the new state')
  t.equal((await w.app.inject({ method: 'GET', url: `/api/projects/${pid}/dashboards/${made.id}/`, ...api })).json().name, 'second', 'the next read sees it')

  const kept = await w.models.get('dashboards', String(made.id))
  t.ok(Object.isFrozen(kept), 'a kept document is frozen, so no caller can change what others read')
  t.throws(() => { (kept as { name: string }).name = 'changed' }, TypeError)
})

t.test('query results are kept too: each caller gets its own array of the shared frozen documents', async (t) => {
  const w = await world(t)
  const api = { headers: w.bearer(w.key.value) }
  const pid = w.installation.project_id
  for (const name of ['b', 'a', 'c']) await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, ...api, payload: { name } })
  const where = { where: { environment_id: w.installation.environment_id } }
  const first = await w.models.find('dashboards', where) as { name: string }[]
  first.sort((x, y) => x.name.localeCompare(y.name))
  const second = await w.models.find('dashboards', where)
  t.not(first, second, 'a fresh array per call')
  t.same(second.map((d) => d.name), ['b', 'a', 'c'], 'one caller sorting its array changes nothing for the next')
  t.ok(second.every((d) => Object.isFrozen(d)), 'the documents are frozen')
  await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, ...api, payload: { name: 'd' } })
  t.equal((await w.models.find('dashboards', where)).length, 4, 'a write is seen by the next query')
})
