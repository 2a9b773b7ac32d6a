import t from 'tap'
import { client } from '../support/client.js'
import { addMember } from '../support/members.js'
import { world } from '../support/world.js'
import { moment } from './support/live.js'

interface Entry {
  scope: string
  activity: string
  item_id: string
  created_at: string
  user: { uuid: string } | null
}

const labels = (entries: Entry[]) => entries.map((e) => `${e.scope} ${e.activity}`)

t.test('the environment activity log filters by user, by a closed time range and by several scopes, under either prefix', async (t) => {
  const w = await world(t)
  const environmentId = w.installation.environment_id
  const admin = client(w.app, w.bearer(w.key.value))
  const member = await addMember(w)
  const asMember = client(w.app, member.headers)
  const base = `/api/environments/${environmentId}`

  const dashboard = (await admin.post(`${base}/dashboards/`, { name: 'Sales' })).body
  t.equal((await admin.post(`${base}/feature_flags/`, { key: 'beta' })).status, 201)
  const first = await moment()
  t.equal((await asMember.patch(`${base}/dashboards/${dashboard.id}/`, { name: 'Sales 2' })).status, 200)
  const subscription = await asMember.post(`${base}/subscriptions/`, {
    dashboard: dashboard.id, target_type: 'email', target_value: 'ann@example.com', frequency: 'daily', start_date: '2099-01-05T09:00:00Z',
  })
  t.equal(subscription.status, 201, subscription.raw)
  const second = await moment()
  t.equal((await admin.patch(`${base}/`, { name: 'Production' })).status, 200)

  const log = async (query: string): Promise<{ count: number; results: Entry[] }> => {
    const response = await admin.get(`${base}/activity_log/${query}`)
    t.equal(response.status, 200, response.raw)
    return response.body
  }
  const all = (await log('')).results
  t.ok(all.length >= 5, `${all.length} entries`)

  const byMember = await log(`?user=${member.uuid}`)
  t.same(labels(byMember.results), ['Subscription created', 'Dashboard updated'], 'only what the member did, newest first')
  t.ok(byMember.results.every((e) => e.user?.uuid === member.uuid))
  const byAdmin = (await log(`?user=${w.installation.user_uuid}`)).results
  t.same(labels(byAdmin).slice(0, 3), ['Project updated', 'FeatureFlag created', 'Dashboard created'])
  t.same(byAdmin, all.filter((e) => e.user?.uuid === w.installation.user_uuid), 'every entry of the admin and no other')

  const untilFirst = (await log(`?end_date=${encodeURIComponent(first)}`)).results
  t.ok(untilFirst.every((e) => Date.parse(e.created_at) <= Date.parse(first)), 'nothing after the end of the range')
  t.same(labels(untilFirst).slice(0, 2), ['FeatureFlag created', 'Dashboard created'])
  const fromFirst = (await log(`?start_date=${encodeURIComponent(first)}`)).results
  t.equal(untilFirst.length + fromFirst.length, all.length, 'the two halves make the whole log')
  const window = await log(`?start_date=${encodeURIComponent(first)}&end_date=${encodeURIComponent(second)}`)
  t.same(labels(window.results), ['Subscription created', 'Dashboard updated'], 'a range closed at both ends')

  const repeated = (await log('?scope=Dashboard&scope=Subscription')).results
  t.same(labels(repeated), ['Subscription created'], 'a repeated scope has its last value, as Django reads it')
  const listed = (await log('?scopes=FeatureFlag,Project')).results
  t.same([...new Set(listed.map((e) => e.scope))].sort(), ['FeatureFlag', 'Project'])
  t.same(listed, all.filter((e) => e.scope === 'FeatureFlag' || e.scope === 'Project'), 'exactly those scopes, none left out')
  t.same(labels(listed).slice(0, 2), ['Project updated', 'FeatureFlag created'])

  const underEnvironments = await admin.get(`${base}/activity_log/?scope=Dashboard`)
  const underProjects = await admin.get(`/api/projects/${environmentId}/activity_log/?scope=Dashboard`)
  t.equal(underProjects.status, 200, underProjects.raw)
  t.same(underProjects.body, underEnvironments.body, 'the same log under /api/projects/')
  t.equal(underProjects.body.count, 2)
})
