import t from 'tap'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

t.test('the management API over real HTTP against the started service', async (t) => {
  const env = { HEDGELOG_DATA_DIR: tempDir(t), PORT: '0', HOST: '127.0.0.1' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout)
  const server = await startServer([], env)
  t.teardown(async () => {
    server.child.kill('SIGTERM')
    await exited(server.child)
  })
  const legacy = JSON.parse((await runCli(['keys', 'create', '--unscoped', '--json'], env)).stdout)
  t.equal(legacy.scopes, null, 'a legacy key has no scopes')
  const call = async (method: string, path: string, body?: unknown, key = init.personal_api_key) => {
    const response = await fetch(`${server.address}${path}`, {
      method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    })
    const text = await response.text()
    return { status: response.status, body: text ? JSON.parse(text) : undefined }
  }
  const projects = await call('GET', '/api/projects/')
  t.equal(projects.status, 200)
  const projectId = projects.body.results[0].id
  t.equal(projectId, init.project_id, 'a client finds its project id from /api/projects/')
  const dashboard = await call('POST', `/api/projects/${projectId}/dashboards/`, { name: 'over the wire' })
  t.equal(dashboard.status, 201)
  const other = await call('POST', `/api/projects/${projectId}/dashboards/`, { name: 'destination' })
  const withTile = await call('PATCH', `/api/environments/${projectId}/dashboards/${dashboard.body.id}/`, { tiles: [{ text: { body: 'hello' } }] })
  const moved = await call('PATCH', `/api/environments/${projectId}/dashboards/${dashboard.body.id}/move_tile/`,
    { tile: withTile.body.tiles[0], toDashboard: other.body.id }, legacy.personal_api_key)
  t.equal(moved.status, 200, 'a legacy key may move tiles')
  const subscription = await call('POST', `/api/projects/${projectId}/subscriptions/`, {
    dashboard: dashboard.body.id, target_type: 'email', target_value: 'a@example.com', frequency: 'weekly', start_date: '2022-01-01T00:00:00',
  })
  t.equal(subscription.status, 201)
  t.equal(subscription.body.summary, 'sent every week')
  const list = await call('GET', `/api/environments/${projectId}/subscriptions/?limit=1`)
  t.match(list.body, { count: 1, next: null, previous: null })
  const deleted = await fetch(`${server.address}/api/environments/${projectId}/dashboards/${dashboard.body.id}/`, {
    method: 'DELETE', headers: { authorization: `Bearer ${init.personal_api_key}` },
  })
  t.equal(deleted.status, 405)
  t.equal(await deleted.text(), '')
  await call('PATCH', `/api/environments/${projectId}/dashboards/${dashboard.body.id}/sharing/`, { enabled: true })
  const sharing = await call('GET', `/api/environments/${projectId}/dashboards/${dashboard.body.id}/sharing/`)
  const shared = await fetch(`${server.address}/shared/${sharing.body.access_token}`)
  t.equal(shared.status, 200)
  t.equal(((await shared.json()) as { dashboard: { name: string } }).dashboard.name, 'over the wire')
})
