import t from 'tap'
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { ownFilesOf } from '../../src/readstore/sqlite-shards.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { digestProjection } from '../../projections/digest.js'
import { allProjectors } from '../../src/modules.js'
import { physicalCollection } from '../../src/readstore/names.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

const RUNS = 3

interface Acknowledged {
  captures: string[]
  batches: string[][]
  imports: string[][]
  dashboards: number[]
}

const post = async (address: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  try {
    const response = await fetch(`${address}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
    return { status: response.status, body: await response.text() }
  } catch {
    return { status: 0, body: '' }
  }
}

/** Mixed writers until the server dies: each write is recorded once its acknowledgement arrived. */
const load = (address: string, token: string, key: string, pid: number, acked: Acknowledged): { stop(): Promise<void> } => {
  let running = true
  const event = (name: string) => ({ uuid: randomUUID(), event: name, distinct_id: `u-${Math.floor(Math.random() * 50)}`, properties: { $set: { n: Math.random() } } })
  const writers = [
    async () => { const e = event('single'); if ((await post(address, '/capture/', { api_key: token, ...e })).status === 200) acked.captures.push(e.uuid) },
    async () => { const batch = Array.from({ length: 20 }, () => event('batched')); if ((await post(address, '/batch/', { api_key: token, batch })).status === 200) acked.batches.push(batch.map((e) => e.uuid)) },
    async () => {
      const batch = Array.from({ length: 300 }, () => ({ ...event('imported'), timestamp: '2021-01-01T00:00:00Z' }))
      if ((await post(address, '/batch/', { api_key: token, historical_migration: true, batch })).status === 200) acked.imports.push(batch.map((e) => e.uuid))
    },
    async () => {
      const answer = await post(address, `/api/projects/${pid}/dashboards/`, { name: `d-${randomUUID()}` }, { authorization: `Bearer ${key}` })
      if (answer.status === 201) acked.dashboards.push((JSON.parse(answer.body) as { id: number }).id)
    },
  ]
  const loops = Array.from({ length: 8 }, async (_, i) => { while (running) await writers[i % writers.length]!() })
  return { stop: async () => { running = false; await Promise.all(loops) } }
}

t.test('kill -9 at random moments under mixed load: nothing acknowledged is lost, nothing is half applied, projections converge to a rebuild', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string; personal_api_key: string; project_id: number; environment_id: number }
  const acked: Acknowledged = { captures: [], batches: [], imports: [], dashboards: [] }
  for (let run = 0; run < RUNS; run++) {
    const server = await startServer([], env)
    const writers = load(server.address, init.project_api_key, init.personal_api_key, init.project_id, acked)
    await new Promise((resolve) => setTimeout(resolve, 400 + Math.random() * 800))
    server.child.kill('SIGKILL')
    await exited(server.child)
    await writers.stop()
  }
  t.ok(acked.captures.length > 0 && acked.batches.length > 0 && acked.imports.length > 0 && acked.dashboards.length > 0, `writes of every kind were acknowledged: ${acked.captures.length} captures, ${acked.batches.length} batches, ${acked.imports.length} imports, ${acked.dashboards.length} dashboards`)

  // One more start, to let the projections resume on what the kills left.
  const last = await startServer([], env)
  for (let i = 0; i < 200; i++) {
    const health = await fetch(`${last.address}/_health`).then((r) => r.json()) as { projections: Record<string, { lag: number }> }
    if (Object.values(health.projections).every((p) => p.lag === 0)) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  last.child.kill('SIGTERM')
  await exited(last.child)

  // Read the read model directly: every acknowledged event is there, every import whole.
  const store = new SqliteReadStore({ path: join(dir, 'readmodels.sqlite'), ownFiles: ownFilesOf(allProjectors) })
  const registry = new ProjectionRegistry(store)
  const eventsCollection = physicalCollection('events', (await registry.read('events'))!.active)
  const has = async (uuid: string) => (await store.get(eventsCollection, `${init.environment_id}:${uuid}`)) !== null
  let lost = 0
  for (const uuid of [...acked.captures, ...acked.batches.flat()]) if (!(await has(uuid))) lost++
  t.equal(lost, 0, 'every acknowledged capture and batch event is in the events read model')
  for (const batch of acked.imports) {
    const present = (await Promise.all(batch.map(has))).filter(Boolean).length
    t.equal(present, batch.length, 'an acknowledged import is there whole')
  }
  const dashboards = physicalCollection('dashboards', (await registry.read('dashboards'))!.active)
  for (const id of acked.dashboards) t.ok(await store.get(dashboards, String(id)), `dashboard ${id} was kept`)

  // The live read models equal a rebuild from the log into a fresh store.
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  const fresh = new SqliteReadStore({ path: join(tempDir(t), 'rebuilt.sqlite') })
  const freshRegistry = new ProjectionRegistry(fresh)
  const rebuild = new ProjectionSet({ log, store: fresh, registry: freshRegistry, projectors: allProjectors, onError: () => undefined })
  await rebuild.start()
  const head = (await log.headPosition())!
  for (const projector of allProjectors) await rebuild.activeRunner(projector.name)!.waitFor(head, 30_000)
  for (const projector of allProjectors) {
    const live = await digestProjection(store, projector, (await registry.read(projector.name))!.active)
    const again = await digestProjection(fresh, projector, (await freshRegistry.read(projector.name))!.active)
    t.equal(live.sha256, again.sha256, `${projector.name} equals its rebuild`)
  }
  await rebuild.stop()
  await log.close()
  await fresh.close()
  await store.close()
})
