import t from 'tap'
import { liveDataDir } from '../../audit/support/live.js'

t.test('insights over real HTTP against the started service, and their audit trail', async (t) => {
  const { server, init, cli } = await liveDataDir(t)
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.address}${path}`, {
      method,
      headers: { authorization: `Bearer ${init.personal_api_key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }
  const projects = await call('GET', '/api/projects/')
  const projectId = projects.body.results[0].id
  const dashboard = await call('POST', `/api/projects/${projectId}/dashboards/`, { name: 'Growth' })
  const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup' }] } }
  const created = await call('POST', `/api/projects/${projectId}/insights/`, { name: 'Signups', query, dashboards: [dashboard.body.id], tags: ['growth'] })
  t.equal(created.status, 201)
  t.match(created.body, { name: 'Signups', query, dashboards: [dashboard.body.id], result: null, is_cached: false, last_refresh: null })
  const listed = await call('GET', `/api/environments/${projectId}/insights/?search=sign&basic=true`)
  t.match(listed.body, { count: 1, next: null, previous: null, results: [{ id: created.body.id, short_id: created.body.short_id }] })
  const tiles = (await call('GET', `/api/environments/${projectId}/dashboards/${dashboard.body.id}/`)).body.tiles
  t.equal(tiles[0].insight.short_id, created.body.short_id, 'the dashboard shows the insight on its tile')
  const renamed = await call('PATCH', `/api/projects/${projectId}/insights/${created.body.short_id}/`, { name: 'Weekly signups' })
  t.equal(renamed.body.name, 'Weekly signups', 'PATCH by short id')
  const deleted = await fetch(`${server.address}/api/projects/${projectId}/insights/${created.body.id}/`, {
    method: 'DELETE', headers: { authorization: `Bearer ${init.personal_api_key}` },
  })
  t.equal(deleted.status, 405)
  t.equal(await deleted.text(), '')

  const trail = await cli(['audit', 'insight', String(created.body.id), '--json'])
  t.equal(trail.code, 0, trail.stderr)
  const lines = JSON.parse(trail.stdout) as { type: string; activity?: string; changes: { field: string | null; after: unknown }[] }[]
  t.same(lines.map((line) => [line.type, line.activity]), [['InsightCreated', 'created'], ['InsightUpdated', 'updated']], 'one line per command')
  t.match(lines[1]!.changes, [{ field: 'name', after: 'Weekly signups' }, { field: 'saved', after: true }])
  const stream = await cli(['audit', `dashboard-${dashboard.body.id}`, '--json'])
  t.ok((JSON.parse(stream.stdout) as { type: string }[]).some((line) => line.type === 'DashboardInsightTilePlaced'), 'the dashboard recorded its tile')
})
