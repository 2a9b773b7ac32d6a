import t from 'tap'
import { insightsWorld as setup } from './support/insights-world.js'

const moment = async (): Promise<string> => {
  await new Promise((resolve) => setTimeout(resolve, 20))
  const at = new Date().toISOString()
  await new Promise((resolve) => setTimeout(resolve, 20))
  return at
}

t.test('an insight\'s activity: who changed what, newest first, with its short id', async (t) => {
  const { api, base, dashboards } = await setup(t)
  const board = (await api.post(dashboards, { name: 'board' })).body.id
  const { body } = await api.post(base, { name: 'Signups' })
  await api.patch(`${base}${body.id}/`, { name: 'Weekly signups', dashboards: [board] })
  await api.patch(`${base}${body.id}/sharing/`, { enabled: true })
  await api.patch(`${base}${body.id}/`, { deleted: true })
  const activity = await api.get(`${base}${body.id}/activity/`)
  t.equal(activity.status, 200)
  t.equal(activity.body.count, 4)
  const [deleted, shared, renamed, created] = activity.body.results
  t.match(created, { activity: 'created', scope: 'Insight', item_id: String(body.id), user: { email: 'admin@hedgelog.local' } })
  t.match(created.detail, { name: 'Signups', short_id: body.short_id })
  t.equal(renamed.activity, 'updated')
  const fields = renamed.detail.changes.map((change: { field: string }) => change.field)
  t.same(fields, ['dashboards', 'name', 'saved'], 'the rename, the dashboard and the save are one command')
  t.match(renamed.detail.changes[0], { field: 'dashboards', before: [], after: [board] })
  t.match(renamed.detail.changes[1], { type: 'Insight', action: 'changed', before: 'Signups', after: 'Weekly signups' })
  t.equal(shared.activity, 'sharing enabled')
  t.equal(deleted.activity, 'deleted')
  t.equal(deleted.detail.name, 'Weekly signups')
  const page = await api.get(`${base}${body.id}/activity/?limit=1&offset=1`)
  t.equal(page.body.results[0].activity, 'sharing enabled')
  t.ok(page.body.next)
})

t.test('the project-wide insights activity holds every insight\'s changes and nothing else', async (t) => {
  const { api, base, dashboards } = await setup(t)
  await api.post(dashboards, { name: 'not an insight' })
  const a = await api.post(base, { name: 'a' })
  await api.post(base, { name: 'b' })
  await api.patch(`${base}${a.body.id}/`, { description: 'now described' })
  const activity = await api.get(`${base}activity/`)
  t.equal(activity.status, 200)
  t.same(activity.body.results.map((entry: { activity: string; detail: { name: string } }) => `${entry.activity} ${entry.detail.name}`), [
    'updated a', 'created b', 'created a',
  ])
  t.ok(activity.body.results.every((entry: { scope: string }) => entry.scope === 'Insight'))
  t.equal((await api.get(`${base}activity/?limit=1`)).body.results.length, 1)
})

t.test('?as_of= answers the insight as it stood then, deleted or not, and 404 before it existed', async (t) => {
  const { api, base, dashboards } = await setup(t)
  const before = await moment()
  const board = (await api.post(dashboards, { name: 'board' })).body.id
  const { body } = await api.post(base, { name: 'v1', query: { kind: 'HogQuery', code: 'return 1' } })
  const afterCreate = await moment()
  const v2 = await api.patch(`${base}${body.id}/`, { name: 'v2', dashboards: [board] })
  const afterRename = await moment()
  await api.patch(`${base}${body.id}/`, { deleted: true })
  const afterDelete = await moment()
  const at = async (time: string) => api.get(`${base}${body.id}/?as_of=${encodeURIComponent(time)}`)
  t.same((await at(afterCreate)).body, body, 'as created')
  t.same((await at(afterRename)).body, v2.body, 'as renamed, on its dashboard')
  const gone = await at(afterDelete)
  t.equal(gone.status, 200, 'history answers for a deleted insight')
  t.equal(gone.body.deleted, true)
  t.equal((await at(before)).status, 404)
  t.equal((await at('yesterday')).status, 400, 'a time that does not parse is a 400')
  t.equal((await api.get(`${base}${body.short_id}/?as_of=${encodeURIComponent(afterCreate)}`)).body.name, 'v1', 'by short id too')
})
