import t from 'tap'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { smtpMailer } from '../../src/mail/mailer.js'
import { httpReceiver } from '../support/receiver.js'
import { mailBody, smtpServer } from '../support/smtp.js'
import { PUBLIC_URL, deliveryWorld } from './support.js'

/** What a receiver's owner writes from the docs: HMAC-SHA256 keyed by the secret over "<t>.<body>". */
const verified = (secret: string, body: string, header: string): boolean => {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]))
  const expected = createHmac('sha256', secret).update(`${parts['t']}.${body}`).digest()
  const given = Buffer.from(parts['v1'] ?? '', 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

t.test('a webhook delivery carries the report, signed with the environment\'s secret', async (t) => {
  const w = await deliveryWorld(t)
  const receiver = await httpReceiver(t)
  await w.api.patch(`/api/environments/${w.environmentId}/dashboards/${w.dashboard.id}/`, { tiles: [{ text: { body: 'Signups are up' } }] })
  await w.api.patch(`/api/environments/${w.environmentId}/dashboards/${w.dashboard.id}/sharing/`, { enabled: true })
  const id = await w.subscribe({ target_type: 'webhook', target_value: `${receiver.url}/hooks/hedgelog`, frequency: 'weekly', start_date: '2027-01-04T09:00:00Z' })
  const environment = (await w.api.get(`/api/environments/${w.environmentId}/`)).body
  t.match(environment.subscription_webhook_secret, /^whsec_/, 'the secret exists once a webhook subscription does, for the receiver to configure')
  await w.runAt('2027-01-04T09:00:00Z')
  t.equal(receiver.received.length, 1)
  const [request] = receiver.received
  t.equal(request!.path, '/hooks/hedgelog')
  t.equal(request!.headers['content-type'], 'application/json')
  const signature = String(request!.headers['x-hedgelog-signature'])
  t.ok(verified(environment.subscription_webhook_secret, request!.body, signature), 'the receiver verifies the signature')
  t.notOk(verified(environment.subscription_webhook_secret, request!.body.replace('Signups', 'Churn'), signature), 'and would notice a changed body')
  const sharing = (await w.api.get(`/api/environments/${w.environmentId}/dashboards/${w.dashboard.id}/sharing/`)).body
  t.match(JSON.parse(request!.body), {
    type: 'subscription.delivery',
    subscription: { id, title: 'Numbers', summary: 'sent every week' },
    dashboard: {
      id: w.dashboard.id, name: 'Weekly numbers', url: `${PUBLIC_URL}/project/${w.environmentId}/dashboard/${w.dashboard.id}`,
      shared_url: `${PUBLIC_URL}/shared/${sharing.access_token}`, tiles: [{ text: 'Signups are up' }],
    },
    occurrence: '2027-01-04T09:00:00Z',
  })
})

t.test('a Slack delivery goes to the environment\'s incoming webhook, naming the channel', async (t) => {
  const w = await deliveryWorld(t)
  const slack = await httpReceiver(t)
  await w.api.patch(`/api/environments/${w.environmentId}/`, { slack_incoming_webhook: `${slack.url}/services/T000/B000/XXX` })
  const id = await w.subscribe({ target_type: 'slack', target_value: 'C0123|#growth', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z')
  t.equal(slack.received.length, 1)
  const body = JSON.parse(slack.received[0]!.body)
  t.equal(body.channel, 'C0123|#growth')
  t.match(body.text, 'Weekly numbers')
  t.match(body.text, 'sent every day')
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'delivered', target_type: 'slack', target_value: 'C0123|#growth' }])
})

t.test('a Slack subscription in an environment without an incoming webhook fails at once, without retries', async (t) => {
  const w = await deliveryWorld(t)
  const id = await w.subscribe({ target_type: 'slack', target_value: '#growth', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z')
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'failed', attempts: 1, reason: /slack_incoming_webhook/ }])
  t.equal((await w.subscription(id)).delivery, null, 'nothing waits for a retry')
})

t.test('e-mail goes to every recipient; newly added recipients get the invite message once', async (t) => {
  const smtp = await smtpServer(t)
  const mailer = smtpMailer(smtp.url, 'Hedgelog <hedgelog@example.com>')
  t.teardown(() => mailer.close())
  const w = await deliveryWorld(t, { mailer })
  w.clock.now = new Date()
  const id = await w.subscribe({
    target_type: 'email', target_value: 'ann@example.com, bob@example.com', frequency: 'daily', start_date: '2027-01-05T09:00:00Z',
    invite_message: 'Our numbers, every morning',
  })
  await w.runAt(new Date().toISOString())
  await w.runAt(new Date().toISOString())
  t.same(smtp.received.map((mail) => mail.to), [['ann@example.com'], ['bob@example.com']], 'one invite each, once')
  t.match(mailBody(smtp.received[0]!), 'Our numbers, every morning')
  t.match(mailBody(smtp.received[0]!), /^Subject: You've been subscribed to/m)
  await w.api.patch(`${w.base}${id}/`, { target_value: 'ann@example.com, bob@example.com, cat@example.com', invite_message: 'Welcome, Cat' })
  await w.runAt(new Date().toISOString())
  t.same(smtp.received.slice(2).map((mail) => mail.to), [['cat@example.com']], 'only the new recipient is invited')
  t.match(mailBody(smtp.received[2]!), 'Welcome, Cat')
  await w.runAt('2027-01-05T09:00:00Z')
  const reports = smtp.received.slice(3)
  t.same(reports.map((mail) => mail.to).flat().sort(), ['ann@example.com', 'bob@example.com', 'cat@example.com'])
  t.match(mailBody(reports[0]!), /^Subject: Numbers: Weekly numbers/m)
  t.match(mailBody(reports[0]!), 'sent every day')
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{
    status: 'delivered', target_type: 'email', recipients: ['ann@example.com', 'bob@example.com', 'cat@example.com'],
  }])
})

t.test('e-mail without SMTP configured is recorded as failed with the reason', async (t) => {
  const w = await deliveryWorld(t)
  const id = await w.subscribe({ target_type: 'email', target_value: 'ann@example.com', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  await w.runAt('2027-01-05T09:00:00Z')
  t.match((await w.api.get(`${w.base}${id}/deliveries/`)).body.results, [{ status: 'failed', reason: /HEDGELOG_SMTP_URL/ }])
})

t.test('test-delivery sends one delivery now, answers its outcome, and leaves the schedule alone', async (t) => {
  const w = await deliveryWorld(t)
  const receiver = await httpReceiver(t, [200, 500])
  const id = await w.subscribe({ target_type: 'webhook', target_value: receiver.url, frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const ok = await w.api.post(`${w.base}${id}/test-delivery/`, {})
  t.equal(ok.status, 200)
  t.match(ok.body, { status: 'delivered', test: true, occurrence: null, attempts: 1, target_type: 'webhook' })
  const failed = await w.api.post(`${w.base}${id}/test-delivery/`, {})
  t.match(failed.body, { status: 'failed', test: true, reason: /500/ })
  t.equal(receiver.received.length, 2)
  t.equal((await w.subscription(id)).next_delivery_date, '2027-01-05T09:00:00Z', 'the schedule did not move')
  const page = await w.api.get(`${w.base}${id}/deliveries/?limit=1`)
  t.match(page.body, { count: 2, previous: null, results: [{ status: 'failed' }] })
  t.match(page.body.next, /offset=1/)
  const second = await w.api.get(`${w.base}${id}/deliveries/?limit=1&offset=1`)
  t.match(second.body.results, [{ status: 'delivered' }], 'newest first')
  const activity = (await w.api.get(`${w.base}${id}/activity/`)).body.results.map((entry: { activity: string }) => entry.activity)
  t.same(activity.slice(0, 2), ['delivery failed', 'delivered'], 'deliveries appear in the subscription\'s activity log')
})

t.test('test-delivery and the delivery history need the subscription scopes', async (t) => {
  const w = await deliveryWorld(t)
  const id = await w.subscribe({ target_type: 'webhook', target_value: 'http://127.0.0.1:9/', frequency: 'daily', start_date: '2027-01-05T09:00:00Z' })
  const reader = await w.issueKey(['subscription:read'])
  const asReader = { ...w.bearer(reader.value) }
  const post = await w.app.inject({ method: 'POST', url: `${w.base}${id}/test-delivery/`, headers: asReader })
  t.equal(post.statusCode, 403)
  const list = await w.app.inject({ method: 'GET', url: `${w.base}${id}/deliveries/`, headers: asReader })
  t.equal(list.statusCode, 200)
  const missing = await w.app.inject({ method: 'GET', url: `${w.base}999999/deliveries/`, headers: w.bearer(w.key.value) })
  t.equal(missing.statusCode, 404)
})
