import t from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { exited } from '../support/cli.js'
import { liveDataDir } from './support/live.js'

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
