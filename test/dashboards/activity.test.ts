import t from 'tap'
import { world } from '../support/world.js'
import { client } from '../support/client.js'
import { addMember } from '../support/members.js'

t.test('the activity log says who changed what and when, newest first', async (t) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const base = `/api/environments/${w.installation.environment_id}/dashboards/`
  const { body } = await api.post(base, { name: 'audited' })
  const colleague = await addMember(w, { email: 'editor@example.com' })
  await client(w.app, colleague.headers).patch(`${base}${body.id}/`, { name: 'renamed', pinned: true })
  await api.patch(`${base}${body.id}/sharing/`, { enabled: true })
  await api.patch(`${base}${body.id}/`, { deleted: true })

  const activity = await api.get(`${base}${body.id}/activity/`)
  t.equal(activity.status, 200)
  t.equal(activity.body.count, 4)
  const [deleted, shared, renamed, created] = activity.body.results
  t.match(created, { activity: 'created', scope: 'Dashboard', item_id: String(body.id), user: { email: 'admin@hedgelog.local' } })
  t.match(renamed, {
    activity: 'updated', user: { email: 'editor@example.com' },
    detail: {
      name: 'renamed',
      changes: [
        { type: 'Dashboard', action: 'changed', field: 'name', before: 'audited', after: 'renamed' },
        { type: 'Dashboard', action: 'changed', field: 'pinned', before: false, after: true },
      ],
    },
  })
  t.equal(renamed.detail.changes.length, 2)
  t.equal(shared.activity, 'sharing enabled')
  t.equal(deleted.activity, 'deleted')
  t.match(deleted.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/)
  t.ok(Date.parse(deleted.created_at) >= Date.parse(created.created_at))

  const page = await api.get(`${base}${body.id}/activity/?limit=1&offset=1`)
  t.equal(page.body.results[0].activity, 'sharing enabled')
  t.match(page.body.next, /limit=1&offset=2$/)
  t.equal((await api.get(`${base}777/activity/`)).status, 404)
})
