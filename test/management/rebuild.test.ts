import t from 'tap'
import { allProjectors } from '../../src/modules.js'
import { collect } from '../support/collect.js'
import { world } from '../support/world.js'
import { client } from '../support/client.js'
import { addMember } from '../support/members.js'

t.test('rebuilding every projection from the log reproduces the same API responses', async (t) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const env = `/api/environments/${w.installation.environment_id}`
  const a = (await api.post(`${env}/dashboards/`, { name: 'a', tags: ['x'], restriction_level: 37 })).body
  const b = (await api.post(`${env}/dashboards/`, { use_dashboard: a.id })).body
  await api.patch(`${env}/dashboards/${a.id}/`, { tiles: [{ text: { body: 'card' } }], pinned: true })
  await api.patch(`${env}/dashboards/${b.id}/`, { deleted: true })
  const colleague = await addMember(w)
  await api.post(`${env}/dashboards/${a.id}/collaborators/`, { user_uuid: colleague.uuid, level: 37 })
  await api.patch(`${env}/dashboards/${a.id}/sharing/`, { enabled: true })
  const s = (await api.post(`${env}/subscriptions/`, {
    dashboard: a.id, target_type: 'slack', target_value: 'C1|#general', frequency: 'monthly', byweekday: ['friday'], bysetpos: -1, start_date: '2022-01-01T09:00:00Z',
  })).body
  await api.patch(`${env}/subscriptions/${s.id}/`, { title: 'monthly', deleted: true })
  await api.post(`/api/projects/${w.installation.project_id}/environments/`, { name: 'Staging', timezone: 'Europe/Berlin' })
  await api.patch(`${env}/`, { name: 'Production', anonymize_ips: true })

  const urls = [
    `${env}/dashboards/`, `${env}/dashboards/${a.id}/`, `${env}/dashboards/${a.id}/collaborators/`, `${env}/dashboards/${a.id}/sharing/`,
    `${env}/subscriptions/?deleted=true`, `${env}/subscriptions/${s.id}/`, '/api/environments/', `${env}/`, '/api/projects/',
    `${env}/dashboards/${a.id}/activity/`,
  ]
  const snapshot = async () => Promise.all(urls.map(async (url) => (await api.get(url)).raw))
  const before = await snapshot()
  for (const projector of allProjectors) await w.projections.rebuild(projector.name)
  for (const name of ['dashboards', 'subscriptions', 'environments']) {
    t.equal((await w.registry.read(name))?.active.build, 2, `${name} is served from its new build`)
  }
  const after = await snapshot()
  t.same(after, before)
  t.ok(before.every((body) => body.length > 2), 'every response has content')
})

t.test('every management mutation is a log event that names its actor and time', async (t) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const env = `/api/environments/${w.installation.environment_id}`
  const d = (await api.post(`${env}/dashboards/`, { name: 'a' })).body
  await api.patch(`${env}/dashboards/${d.id}/`, { name: 'b' })
  await api.patch(`${env}/dashboards/${d.id}/sharing/`, { enabled: true })
  await api.post(`${env}/subscriptions/`, { dashboard: d.id, target_type: 'webhook', target_value: 'https://example.com/hook', frequency: 'daily', start_date: '2022-01-01T00:00:00Z' })
  await api.patch(`${env}/`, { name: 'renamed' })
  const events = (await collect(w.log.readAll())).filter((e) => /^(dashboard|subscription)-/.test(e.streamId) || e.type === 'EnvironmentUpdated')
  t.same(events.map((e) => e.type), ['DashboardCreated', 'DashboardUpdated', 'DashboardSharingChanged', 'SubscriptionCreated', 'EnvironmentUpdated'])
  for (const event of events) {
    t.equal(event.metadata?.['actor'], w.installation.user_uuid, `${event.type} names the user`)
    t.match(String(event.metadata?.['occurredAt']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/, `${event.type} has its time`)
  }
})
