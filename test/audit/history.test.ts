import t from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { tempDir } from '../support/temp.js'
import { liveDataDir, moment } from './support/live.js'

t.test('as_of, audit --at and rebuild --until show each state of a dashboard at its time', async (t) => {
  const { api, cli } = await liveDataDir(t)
  const created = await api('POST', '/dashboards/', { name: 'Draft' })
  t.equal(created.status, 201)
  const id = created.json.id as number
  const beforeFirst = await moment()
  t.equal((await api('PATCH', `/dashboards/${id}/`, { name: 'First' })).status, 200)
  const between = await moment()
  t.equal((await api('PATCH', `/dashboards/${id}/`, { name: 'Second' })).status, 200)
  const after = await moment()
  t.equal((await api('PATCH', `/dashboards/${id}/`, { deleted: true })).status, 200)
  const whileDeleted = await moment()
  t.equal((await api('PATCH', `/dashboards/${id}/`, { deleted: false })).status, 200)
  const restored = await moment()

  const asOf = async (at: string) => api('GET', `/dashboards/${id}/?as_of=${encodeURIComponent(at)}`)
  t.equal((await asOf(beforeFirst)).json.name, 'Draft')
  t.equal((await asOf(between)).json.name, 'First', 'between the PATCHes: the first value')
  t.equal((await asOf(after)).json.name, 'Second', 'after them: the second')
  t.equal((await asOf(whileDeleted)).json.deleted, true, 'deleted while it was deleted')
  t.equal((await asOf(restored)).json.deleted, false, 'and restored after')
  t.equal((await asOf('2001-01-01T00:00:00Z')).status, 404, 'before it existed')
  const bad = await asOf('last tuesday')
  t.equal(bad.status, 400)
  t.match(bad.json, { type: 'validation_error', attr: 'as_of' })

  const atCli = await cli(['audit', 'dashboard', String(id), '--at', between, '--json'])
  t.equal(atCli.code, 0, atCli.stderr)
  t.equal(JSON.parse(atCli.stdout).name, 'First')
  const trail = JSON.parse((await cli(['audit', `dashboard-${id}`, '--json'])).stdout) as Array<{ position: string; activity: string; changes: Array<{ field: string; after: unknown }> }>
  t.same(trail.map((line) => line.activity), ['created', 'updated', 'updated', 'deleted', 'restored'], 'oldest first')
  t.ok(trail.every((line) => /^\d+\/\d+$/.test(line.position)), 'each with its log position')
  t.match(trail[2]!.changes, [{ field: 'name', after: 'Second' }])
  t.match((await cli(['audit', 'dashboard', 'twelve'])).stderr, /whole number/)

  for (const [until, name] of [[between, 'First'], [after, 'Second']] as const) {
    const into = join(tempDir(t), 'rebuilt')
    const rebuilt = await cli(['rebuild', '--projection', 'dashboards', '--until', until, '--into', into, '--json'])
    t.equal(rebuilt.code, 0, rebuilt.stderr)
    t.match(JSON.parse(rebuilt.stdout).projections, [{ projection: 'dashboards', collections: { dashboards: { count: 1 } }, sha256: /^[0-9a-f]{64}$/ }])
    const db = new Database(join(into, 'readmodels.sqlite'), { readonly: true })
    const row = db.prepare('SELECT body FROM c_dashboards_v2_b1 WHERE id = ?').get(String(id)) as { body: string }
    db.close()
    t.equal(JSON.parse(row.body).name, name, `rebuild --until ${until}`)
  }
  t.match((await cli(['rebuild', '--until', 'soon'])).stderr, /--until takes a log position/)
  t.match((await cli(['rebuild', '--projection', 'nope'])).stderr, /unknown projection: nope/)
})

t.test('the environment activity log lists every management change, newest first, with filters', async (t) => {
  const { api, init, server } = await liveDataDir(t)
  const dashboard = (await api('POST', '/dashboards/', { name: 'Sales' })).json
  await api('PATCH', `/dashboards/${dashboard.id}/`, { name: 'Sales 2' })
  const flag = (await api('POST', '/feature_flags/', { key: 'beta', filters: { groups: [{ rollout_percentage: 50 }] } })).json
  const all = await api('GET', '/activity_log/')
  t.equal(all.status, 200)
  t.same(all.json.results.slice(0, 3).map((e: { scope: string; activity: string }) => `${e.scope} ${e.activity}`),
    ['FeatureFlag created', 'Dashboard updated', 'Dashboard created'], 'newest first')
  t.match(all.json.results[1], { item_id: String(dashboard.id), detail: { changes: [{ field: 'name', before: 'Sales', after: 'Sales 2' }] }, user: { email: String } })
  const flags = await api('GET', '/activity_log/?scope=FeatureFlag')
  t.same(flags.json.results.map((e: { item_id: string }) => e.item_id), [String(flag.id)])
  const one = await api('GET', `/activity_log/?scope=Dashboard&item_id=${dashboard.id}&limit=1`)
  t.equal(one.json.count, 2)
  t.equal(one.json.results.length, 1)
  t.ok(one.json.next, 'paginated')
  const future = await api('GET', '/activity_log/?start_date=2999-01-01T00:00:00Z')
  t.equal(future.json.count, 0)
  t.equal((await api('GET', '/activity_log/?start_date=whenever')).status, 400)
  const projectScoped = await fetch(`${server.address}/api/projects/${init.environment_id}/activity_log/`)
  t.equal(projectScoped.status, 401, 'needs a key')
})
