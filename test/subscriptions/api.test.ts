import t, { type Test } from 'tap'
import type { EventLog } from '../../src/eventlog/port.js'
import { collect } from '../support/collect.js'
import { world } from '../support/world.js'
import { client } from '../support/client.js'

const setup = async (t: Test) => {
  const w = await world(t)
  const api = client(w.app, w.bearer(w.key.value))
  const dashboard = (await api.post(`/api/environments/${w.installation.environment_id}/dashboards/`, { name: 'weekly numbers' })).body
  const base = `/api/environments/${w.installation.environment_id}/subscriptions/`
  const minimal = { dashboard: dashboard.id, target_type: 'email', target_value: 'test@posthog.com', frequency: 'weekly', start_date: '2022-01-01T00:00:00' }
  return { ...w, api, dashboard, base, minimal }
}

const invites = async (log: EventLog) =>
  (await collect(log.readAll())).filter((e) => e.type === 'SubscriptionInvitesRequested').map((e) => e.data)

t.test('create answers 201 with PostHog\'s exact shape', async (t) => {
  const { api, base, dashboard, installation, minimal } = await setup(t)
  const before = Date.now()
  const created = await api.post(base, { ...minimal, interval: 1, title: 'My Subscription', invite_message: 'hey there!' })
  t.equal(created.status, 201)
  t.same(Object.keys(created.body).sort(), [
    'bysetpos', 'byweekday', 'count', 'created_at', 'created_by', 'dashboard', 'deleted', 'frequency', 'id', 'insight', 'interval',
    'invite_message', 'next_delivery_date', 'start_date', 'summary', 'target_type', 'target_value', 'title', 'until_date',
  ])
  t.match(created.body, {
    id: Number, dashboard: dashboard.id, insight: null, target_type: 'email', target_value: 'test@posthog.com', frequency: 'weekly',
    interval: 1, byweekday: null, bysetpos: null, count: null, start_date: '2022-01-01T00:00:00Z', until_date: null,
    created_by: { uuid: installation.user_uuid }, deleted: false, title: 'My Subscription', summary: 'sent every week', invite_message: null,
  })
  const next = Date.parse(created.body.next_delivery_date)
  t.ok(next > before + 15 * 60_000, 'the next delivery is more than 15 minutes away')
  t.ok(next <= before + 15 * 60_000 + 7 * 86_400_000, 'and within a week of that')
  t.equal(new Date(next).getUTCDay(), 6, 'on the start date\'s weekday (2022-01-01 was a Saturday)')
  t.match(created.body.next_delivery_date, /T00:00:00Z$/, 'at the start date\'s time of day')
  t.same((await api.get(`${base}${created.body.id}/`)).body, created.body)
})

t.test('every e-mail recipient is invited on create; only new ones on a change', async (t) => {
  const { api, base, log, minimal } = await setup(t)
  const { body } = await api.post(base, { ...minimal, invite_message: 'hey there!' })
  const patched = await api.patch(`${base}${body.id}/`, { target_value: 'test@posthog.com,new_user@posthog.com', invite_message: 'hi new user' })
  t.equal(patched.status, 200)
  t.equal(patched.body.target_value, 'test@posthog.com,new_user@posthog.com')
  t.equal(patched.body.invite_message, null)
  await api.patch(`${base}${body.id}/`, { title: 'no new recipients' })
  t.same((await invites(log)).map(({ emails, inviteMessage }) => ({ emails, inviteMessage })), [
    { emails: ['test@posthog.com'], inviteMessage: 'hey there!' },
    { emails: ['new_user@posthog.com'], inviteMessage: 'hi new user' },
  ])
  t.equal((await api.post(base, { ...minimal, invite_message: null })).status, 201, 'a null invite message is fine')
})

t.test('the summary follows the schedule', async (t) => {
  const { api, base, minimal } = await setup(t)
  const monthly = await api.post(base, { ...minimal, frequency: 'monthly', interval: 2, byweekday: ['wednesday'], bysetpos: 1 })
  t.equal(monthly.body.summary, 'sent every 2 months on the first Wednesday')
  const daily = await api.post(base, { ...minimal, frequency: 'daily' })
  t.equal(daily.body.summary, 'sent every day')
})

t.test('next_delivery_date moves when the schedule changes, not when the title does', async (t) => {
  const { api, base, minimal } = await setup(t)
  const { body } = await api.post(base, minimal)
  const url = `${base}${body.id}/`
  const retitled = await api.patch(url, { title: 'renamed' })
  t.equal(retitled.body.next_delivery_date, body.next_delivery_date)
  const daily = await api.patch(url, { frequency: 'daily', start_date: '2022-01-01T10:00:00Z' })
  t.match(daily.body.next_delivery_date, /T10:00:00Z$/)
  t.ok(Date.parse(daily.body.next_delivery_date) - Date.now() <= 86_400_000 + 15 * 60_000)
  const ended = await api.patch(url, { until_date: '2022-02-01T00:00:00Z' })
  t.equal(ended.body.next_delivery_date, null, 'a schedule that has ended has no next delivery')
})

t.test('validation errors name the field', async (t) => {
  const { api, base, minimal, installation } = await setup(t)
  const check = async (body: unknown, expected: Record<string, unknown>) => {
    const response = await api.post(base, body)
    t.equal(response.status, 400, JSON.stringify(expected))
    t.match(response.body, { type: 'validation_error', ...expected })
  }
  await check({ ...minimal, target_type: 'pigeon' }, { code: 'invalid_choice', attr: 'target_type', detail: '"pigeon" is not a valid choice.' })
  await check({ ...minimal, frequency: 'hourly' }, { code: 'invalid_choice', attr: 'frequency' })
  await check({ ...minimal, byweekday: ['monday', 'funday'] }, { code: 'invalid_choice', attr: 'byweekday__1' })
  await check({ ...minimal, interval: 0 }, { attr: 'interval' })
  await check({ ...minimal, interval: -1 }, { attr: 'interval' })
  const { start_date: _s, ...noStart } = minimal
  await check(noStart, { code: 'required', attr: 'start_date' })
  await check({ ...minimal, start_date: 'next tuesday' }, { code: 'invalid', attr: 'start_date' })
  const { dashboard: _d, ...noTarget } = minimal
  await check(noTarget, { detail: 'Either dashboard or insight is required for an export.', attr: null })
  await check({ ...minimal, dashboard: 9999 }, { detail: 'This dashboard does not belong to your team.', attr: 'dashboard' })
  await check({ ...minimal, dashboard: null, insight: 3 }, { detail: 'This insight does not belong to your team.', attr: 'insight' })
  await check({ ...minimal, title: 'x'.repeat(101) }, { attr: 'title' })
  const other = await api.post(`/api/projects/${installation.project_id}/environments/`, { name: 'Other' })
  const foreignDashboard = await api.post(`/api/environments/${other.body.id}/dashboards/`, { name: 'theirs' })
  await check({ ...minimal, dashboard: foreignDashboard.body.id }, { attr: 'dashboard' })
})

t.test('the list: limit/offset envelope, deleted ones hidden, restorable, DELETE refused', async (t) => {
  const { api, base, minimal } = await setup(t)
  const ids: number[] = []
  for (const title of ['a', 'b', 'c']) ids.push((await api.post(base, { ...minimal, title })).body.id)
  const page = await api.get(`${base}?limit=2`)
  t.match(page.body, { count: 3, previous: null, next: `http://localhost${base}?limit=2&offset=2` })
  t.same(page.body.results.map((s: { title: string }) => s.title), ['a', 'b'])
  const url = `${base}${ids[0]}/`
  const deleted = await api.patch(url, { deleted: true })
  t.equal(deleted.body.deleted, true)
  t.equal((await api.get(base)).body.count, 2)
  t.same((await api.get(`${base}?deleted=true`)).body.results.map((s: { id: number }) => s.id), [ids[0]])
  const stillThere = await api.get(url)
  t.equal(stillThere.status, 200, 'a deleted subscription stays retrievable')
  t.equal(stillThere.body.deleted, true)
  t.equal((await api.patch(url, { deleted: false })).body.deleted, false)
  const refused = await api.delete(url)
  t.equal(refused.status, 405)
  t.equal(refused.raw, '')
  t.equal((await api.get(base)).body.count, 3)
})

t.test('scopes and missing records', async (t) => {
  const w = await setup(t)
  const { body } = await w.api.post(w.base, w.minimal)
  t.equal((await client(w.app, {}).get(w.base)).status, 401)
  const reader = client(w.app, w.bearer((await w.issueKey(['subscription:read'])).value))
  t.equal((await reader.get(`${w.base}${body.id}/`)).status, 200)
  t.equal((await reader.post(w.base, w.minimal)).body.detail, "API key missing required scope 'subscription:write'")
  t.equal((await client(w.app, w.bearer((await w.issueKey(['dashboard:read'])).value)).get(w.base)).status, 403)
  t.equal((await w.api.get(`${w.base}424242/`)).status, 404)
  t.equal((await w.api.patch(`${w.base}424242/`, { title: 'x' })).status, 404)
})

t.test('the activity log records each change with its author', async (t) => {
  const { api, base, minimal } = await setup(t)
  const { body } = await api.post(base, { ...minimal, title: 'first' })
  await api.patch(`${base}${body.id}/`, { title: 'second' })
  const activity = await api.get(`${base}${body.id}/activity/`)
  t.equal(activity.body.count, 2)
  t.match(activity.body.results[0], {
    activity: 'updated', scope: 'Subscription', user: { email: 'admin@hedgelog.local' },
    detail: { changes: [{ field: 'title', before: 'first', after: 'second' }] },
  })
  t.equal(activity.body.results[1].activity, 'created')
})
