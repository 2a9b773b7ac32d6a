import t from 'tap'
import { world } from '../support/world.js'
import type { Position } from '../../src/eventlog/port.js'
import type { ReadStore } from '../../src/readstore/port.js'
import { ReadModels } from '../../src/readstore/read-models.js'

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

/** A read model over a counted store, a registry that may or may not answer at once, and a projector whose position the test moves. */
const setup = (options: { fresh: boolean }) => {
  const state = { reads: 0, value: 1, position: { commit: 1n, prepare: 1n } as Position | null, build: 1 }
  const store = {
    get: async (collection: string, id: string) => {
      state.reads++
      return { id, collection, value: state.value }
    },
  } as unknown as ReadStore
  const registry = {
    cached: async () => ({ active: { version: 1, build: state.build } }),
    ...(options.fresh ? { fresh: () => ({ active: { version: 1, build: state.build } }) } : {}),
  }
  const projections = { activeRunner: () => ({ get position() { return state.position }, waitFor: async () => true }) }
  const models = new ReadModels({ store, registry, projectors: [{ name: 'things', version: 1, collections: ['things'] }], projections })
  return { state, models: models as unknown as { get(collection: string, id: string): Promise<Record<string, unknown> | null> } }
}

for (const fresh of [true, false]) {
  t.test(`documents are kept while the projector stands still (registry answering at once: ${fresh})`, async (t) => {
    const { state, models } = setup({ fresh })
    t.same(await models.get('things', 'a'), { id: 'a', collection: 'things_v1_b1', value: 1 })
    t.equal(state.reads, 1)
    state.value = 2
    t.same(await models.get('things', 'a'), { id: 'a', collection: 'things_v1_b1', value: 1 }, 'kept')
    t.equal(state.reads, 1)

    state.position = { commit: 2n, prepare: 2n }
    t.same(await models.get('things', 'a'), { id: 'a', collection: 'things_v1_b1', value: 2 }, 'read again once the projector moved')
    t.equal(state.reads, 2)

    state.build = 2
    t.same(await models.get('things', 'a'), { id: 'a', collection: 'things_v1_b2', value: 2 }, 'another build is another table')
    t.equal(state.reads, 3)
  })
}

t.test('a collection no projector owns is refused by the promise, not thrown', async (t) => {
  const { models } = setup({ fresh: true })
  let promise: Promise<unknown> | null = null
  t.doesNotThrow(() => { promise = models.get('unknown', 'a') })
  await t.rejects(promise!, /no projector owns unknown/)
})

t.test('peek answers a kept document while it is current, and undefined whenever get would read', async (t) => {
  const { state, models } = setup({ fresh: true })
  const peek = (id: string) => (models as unknown as { peek(collection: string, id: string): unknown }).peek('things', id)
  t.equal(peek('a'), undefined, 'not read yet')
  const doc = await models.get('things', 'a')
  t.equal(peek('a'), doc)
  state.position = { commit: 2n, prepare: 2n }
  t.equal(peek('a'), undefined, 'the projector moved')
  t.equal((models as unknown as { peek(collection: string, id: string): unknown }).peek('unknown', 'a'), undefined, 'a collection no projector owns')
  const slow = setup({ fresh: false })
  await slow.models.get('things', 'a')
  t.equal((slow.models as unknown as { peek(collection: string, id: string): unknown }).peek('things', 'a'), undefined, 'a registry that would read')
})
