import t from 'tap'
import { Unavailable } from '../../src/eventlog/errors.js'
import type { EventLog } from '../../src/eventlog/port.js'
import type { ReadStore } from '../../src/readstore/port.js'
import { world } from '../support/world.js'

const UNAVAILABLE = { type: 'server_error', code: 'service_unavailable', detail: 'Storage is unavailable at the moment. Please retry shortly.', attr: null }

/** Makes a real store fail as a full or unreadable disk does, until `healed` is called. */
const failing = <S extends object>(store: S, methods: (keyof S)[], error: () => Error) => {
  const originals = methods.map((name) => [name, store[name]] as const)
  for (const name of methods) (store as Record<keyof S, unknown>)[name] = async () => { throw error() }
  return () => { for (const [name, original] of originals) (store as Record<keyof S, unknown>)[name] = original }
}

t.test('an event log that cannot be written gives 503 with a clear body everywhere, and the service recovers by itself', async (t) => {
  const w = await world(t)
  const api = { headers: w.bearer(w.key.value) }
  const pid = w.installation.project_id
  const heal = failing<EventLog>(w.log, ['append'], () => new Unavailable('database or disk is full'))
  const dashboard = await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, ...api, payload: { name: 'd' } })
  t.equal(dashboard.statusCode, 503)
  t.same(dashboard.json(), UNAVAILABLE)
  const flag = await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/feature_flags/`, ...api, payload: { key: 'k', filters: { groups: [{ rollout_percentage: 5 }] } } })
  t.equal(flag.statusCode, 503)
  const captured = await w.app.inject({ method: 'POST', url: '/capture/', payload: { api_key: w.installation.project_api_key, event: 'e', distinct_id: 'd' } })
  t.equal(captured.statusCode, 503)
  t.same(captured.json(), { status: 503, code: 'service_unavailable', error: 'service unavailable: transient error, please retry' })
  heal()
  t.equal((await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, ...api, payload: { name: 'd' } })).statusCode, 201)
  t.equal((await w.app.inject({ method: 'POST', url: '/capture/', payload: { api_key: w.installation.project_api_key, event: 'e', distinct_id: 'd' } })).statusCode, 200)
})

t.test('a read store that fails gives 503 on reads and on health, and recovers', async (t) => {
  const w = await world(t)
  const heal = failing<ReadStore>(w.store, ['find', 'get', 'checkpoint'], () => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }))
  const listed = await w.app.inject({ method: 'GET', url: `/api/projects/${w.installation.project_id}/dashboards/`, headers: w.bearer(w.key.value) })
  t.equal(listed.statusCode, 503)
  t.same(listed.json(), UNAVAILABLE)
  const health = await w.app.inject({ method: 'GET', url: '/_health' })
  t.equal(health.statusCode, 503)
  t.match(health.json(), { status: 'error', problems: ['readStore'] })
  heal()
  t.equal((await w.app.inject({ method: 'GET', url: `/api/projects/${w.installation.project_id}/dashboards/`, headers: w.bearer(w.key.value) })).statusCode, 200)
  t.equal((await w.app.inject({ method: 'GET', url: '/_health' })).statusCode, 200)
})

t.test('a damaged page met by one read keeps health at 503 while other reads succeed', async (t) => {
  const w = await world(t)
  const api = { headers: w.bearer(w.key.value) }
  const pid = w.installation.project_id
  const made = (await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, ...api, payload: { name: 'damaged' } })).json() as { id: number }
  const get = w.store.get.bind(w.store)
  w.store.get = async (collection, id) => {
    if (collection.startsWith('dashboards') && id === String(made.id)) throw Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' })
    return get(collection, id)
  }
  t.teardown(() => { w.store.get = get })
  // Another write moves the dashboards projection on, so the next read goes to the store.
  t.equal((await w.app.inject({ method: 'POST', url: `/api/projects/${pid}/dashboards/`, ...api, payload: { name: 'other' } })).statusCode, 201)
  const one = await w.app.inject({ method: 'GET', url: `/api/projects/${pid}/dashboards/${made.id}/`, ...api })
  t.equal(one.statusCode, 503, 'the damaged read is a 503')
  t.same(one.json(), UNAVAILABLE)
  t.equal((await w.app.inject({ method: 'GET', url: `/api/projects/${pid}/dashboards/`, ...api })).statusCode, 200, 'another read succeeds')
  const health = await w.app.inject({ method: 'GET', url: '/_health' })
  t.equal(health.statusCode, 503, 'health does not answer ok over a damaged store')
  t.match(health.json(), { status: 'error', problems: [/^storage failed \d+ s ago: database disk image is malformed$/] })
})

t.test('a projection whose store is full is named in health until the disk has room again', async (t) => {
  const w = await world(t)
  const commit = w.store.commit.bind(w.store)
  const full = { on: true }
  w.store.commit = async (request) => {
    if (full.on && request.checkpoint.startsWith('persons')) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
    return commit(request)
  }
  const captured = await w.app.inject({ method: 'POST', url: '/capture/', payload: { api_key: w.installation.project_api_key, event: 'e', distinct_id: 'full-disk', properties: { $set: { a: 1 } } } })
  t.equal(captured.statusCode, 200)
  let health = await w.app.inject({ method: 'GET', url: '/_health' })
  for (let i = 0; i < 50 && health.statusCode === 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    health = await w.app.inject({ method: 'GET', url: '/_health' })
  }
  t.equal(health.statusCode, 503)
  t.match(health.json(), { status: 'error', problems: [/^projection persons cannot advance: .*database or disk is full$/], projections: { persons: { error: /database or disk is full/ } } })
  full.on = false
  for (let i = 0; i < 300 && health.statusCode !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    health = await w.app.inject({ method: 'GET', url: '/_health' })
  }
  t.equal(health.statusCode, 200, 'health is ok again once the store takes commits')
})
