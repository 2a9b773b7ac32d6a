import t from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { exited } from '../support/cli.js'
import { liveDataDir } from './support/live.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { ownFilesOf } from '../../src/readstore/sqlite-shards.js'
import { allProjectors } from '../../src/modules.js'
import { persons } from '../../src/persons/projection.js'
import { digestProjection } from '../../projections/digest.js'
import { ProjectionRegistry } from '../../projections/registry.js'

const batch = (token: string, n: number) => JSON.stringify({
  api_key: token,
  batch: Array.from({ length: 50 }, (_, i) => ({ event: '$pageview', distinct_id: `user-${(n * 50 + i) % 300}`, properties: { $set: { n, i } } })),
})

t.test('verify passes on a live data directory under ingestion load and names a document edited by hand', async (t) => {
  const { dir, init, server, api, cli } = await liveDataDir(t)
  t.equal((await api('POST', '/dashboards/', { name: 'Revenue' })).status, 201)
  let sending = true
  let sent = 0
  const load = (async () => {
    while (sending) {
      const response = await fetch(`${server.address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: batch(init.project_api_key, sent) })
      if (response.status === 200) sent++
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })()
  await new Promise((resolve) => setTimeout(resolve, 300))
  const live = await cli(['verify', '--json'])
  sending = false
  await load
  t.equal(live.code, 0, live.stdout + live.stderr)
  const report = JSON.parse(live.stdout)
  t.equal(report.difference, null)
  t.ok(report.documents > 0 && sent > 5, `${report.documents} documents compared while ${sent} batches arrived`)

  server.child.kill('SIGTERM')
  await exited(server.child)
  const db = new Database(join(dir, 'readmodels.sqlite'))
  const row = db.prepare('SELECT id, body FROM c_dashboards_v2_b1').get() as { id: string; body: string }
  db.prepare('UPDATE c_dashboards_v2_b1 SET body = ? WHERE id = ?').run(JSON.stringify({ ...JSON.parse(row.body), name: 'Revenue (edited)' }), row.id)
  db.close()
  const edited = await cli(['verify'])
  t.equal(edited.code, 1)
  t.match(edited.stdout, `read models differ from a replay of the log: dashboards dashboards/${row.id}`)
  t.match(edited.stdout, /live: .*Revenue \(edited\)/)
})

t.test('verify passes on read models built in partitions, with persons merged across them, and a rebuild gives their digests', async (t) => {
  const { dir, init, server, cli } = await liveDataDir(t, { HEDGELOG_PROJECTION_PARTITIONS: '2' })
  // Seven anonymous ids, five users: each user gathers the persons of several anonymous ids, in either partition.
  const batch = Array.from({ length: 60 }, (_, i) => i % 4 === 3
    ? { event: '$identify', distinct_id: `user-${i % 5}`, properties: { $anon_distinct_id: `anon-${i % 7}`, $set: { i } } }
    : { event: '$pageview', distinct_id: i % 3 === 0 ? `user-${i % 5}` : `anon-${i % 7}`, properties: { $set: { i }, $session_id: `s-${i % 6}` } })
  const sent = await fetch(`${server.address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: init.project_api_key, batch }) })
  t.equal(sent.status, 200)
  for (let tries = 0; (await fetch(`${server.address}/_health`)).status !== 200; tries++) {
    if (tries > 200) throw new Error('the read models did not catch up')
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const verified = await cli(['verify', '--json'])
  t.equal(verified.code, 0, verified.stdout + verified.stderr)
  t.equal(JSON.parse(verified.stdout).difference, null, 'the partitioned builds match a replay in as many partitions')
  const store = new SqliteReadStore({ path: join(dir, 'readmodels.sqlite'), ownFiles: ownFilesOf(allProjectors) })
  const live = await digestProjection(store, persons, (await new ProjectionRegistry(store).read(persons.name))!.active)
  await store.close()
  const rebuilt = await cli(['rebuild', '--json'])
  t.equal(rebuilt.code, 0, rebuilt.stderr)
  const digests = JSON.parse(rebuilt.stdout).projections as { projection: string; sha256: string }[]
  t.equal(digests.find((one) => one.projection === 'persons')!.sha256, live.sha256, 'a rebuild in the configured partitions gives the live persons digest')
})

t.test('verify --seals passes on an untouched log and names the event whose data changed by one byte', async (t) => {
  const { dir, server, api, cli } = await liveDataDir(t)
  const dashboard = (await api('POST', '/dashboards/', { name: 'Audited' })).json
  const sealed = await cli(['seal', '--json'])
  t.equal(sealed.code, 0, sealed.stderr)
  const seal = JSON.parse(sealed.stdout).seals[0]
  t.match(seal, { eventCount: Number, chainSha256: /^[0-9a-f]{64}$/, algorithm: 'sha256-chain-v1' })
  await api('PATCH', `/dashboards/${dashboard.id}/`, { name: 'Audited 2' })
  t.equal(JSON.parse((await cli(['seal', '--json'])).stdout).seals[0].fromCount, seal.eventCount, 'a second seal follows on')
  const clean = await cli(['verify', '--seals'])
  t.equal(clean.code, 0, clean.stdout + clean.stderr)
  t.match(clean.stdout, /every seal matches: 2 seals/)

  server.child.kill('SIGTERM')
  await exited(server.child)
  const db = new Database(join(dir, 'events.sqlite'))
  const row = db.prepare("SELECT global_position, data FROM events WHERE stream_id = ? AND stream_revision = 0").get(`dashboard-${dashboard.id}`) as { global_position: number; data: string }
  const at = row.data.indexOf('Audited') + 1
  db.prepare('UPDATE events SET data = ? WHERE global_position = ?').run(`${row.data.slice(0, at)}U${row.data.slice(at + 1)}`, row.global_position)
  db.close()
  const broken = await cli(['verify', '--seals'])
  t.equal(broken.code, 1)
  t.match(broken.stdout, `first changed event: dashboard-${dashboard.id}@0 (DashboardCreated`)
  const refused = await cli(['seal'])
  t.equal(refused.code, 1)
  t.match(refused.stderr, /refusing to seal/)
})
