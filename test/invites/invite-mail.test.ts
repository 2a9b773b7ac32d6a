import t, { type Test } from 'tap'
import { buildApp } from '../../src/app.js'
import { smtpMailer } from '../../src/mail/mailer.js'
import { client } from '../support/client.js'
import { world } from '../support/world.js'
import { closedPort } from '../support/closed-port.js'
import { mailBody, smtpServer } from '../support/smtp.js'

/** The API with a mailer sending to `smtpUrl`, and the owner's client for it. */
const withMailer = async (t: Test, smtpUrl: string) => {
  const w = await world(t)
  const mailer = smtpMailer(smtpUrl, 'Hedgelog <hedgelog@example.com>')
  t.teardown(() => mailer.close())
  const app = await buildApp({ log: w.log, store: w.store, models: w.models, projections: w.projections, roles: ['api'], mailer })
  t.teardown(() => app.close())
  return { ...w, app, owner: client(app, w.bearer(w.key.value)), url: `/api/organizations/${w.installation.organization_id}/invites/` }
}

t.test('with SMTP configured, an invite is e-mailed to its address and names the command that accepts it', async (t) => {
  const smtp = await smtpServer(t)
  const w = await withMailer(t, smtp.url)
  const created = await w.owner.post(w.url, { target_email: 'ann@example.com', first_name: 'Ann', level: 1, message: 'Welcome aboard' })
  t.equal(created.status, 201)
  t.equal(created.body.emailing_attempt_made, true, 'the answer says an e-mail was attempted')
  const inviteId = created.body.id as string
  for (let i = 0; i < 100 && smtp.received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(smtp.received.length, 1, 'one e-mail was sent')
  const [mail] = smtp.received
  t.same(mail!.to, ['ann@example.com'])
  t.match(mail!.data, /^Subject: .*invited you to join/m)
  const body = mailBody(mail!)
  t.match(body, `npx hedgelog invites accept ${inviteId} --first-name "Ann"`, 'the body names the command, with the invite id')
  t.match(body, 'Welcome aboard', 'and carries the inviter\'s message')
  const listed = await w.owner.get(w.url)
  t.equal(listed.body.results[0].emailing_attempt_made, true, 'and so does the list')
})

t.test('send_email: false creates the invite without e-mailing it, and says no attempt was made', async (t) => {
  const smtp = await smtpServer(t)
  const w = await withMailer(t, smtp.url)
  const quiet = await w.owner.post(w.url, { target_email: 'quiet@example.com', send_email: false })
  t.equal(quiet.status, 201)
  t.equal(quiet.body.emailing_attempt_made, false)
  const mailed = await w.owner.post(w.url, { target_email: 'mailed@example.com' })
  t.equal(mailed.body.emailing_attempt_made, true)
  for (let i = 0; i < 100 && smtp.received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  t.same(smtp.received.map((mail) => mail.to), [['mailed@example.com']], 'only the invite that asked for it was e-mailed')
  const listed = await w.owner.get(w.url)
  const attempted = Object.fromEntries(listed.body.results.map((i: { target_email: string; emailing_attempt_made: boolean }) => [i.target_email, i.emailing_attempt_made]))
  t.same(attempted, { 'mailed@example.com': true, 'quiet@example.com': false })
})

t.test('an SMTP server that cannot be reached does not stop the invite', async (t) => {
  const w = await withMailer(t, `smtp://127.0.0.1:${await closedPort()}`)
  const created = await w.owner.post(w.url, { target_email: 'bob@example.com', level: 1 })
  t.equal(created.status, 201, 'the invite is created and answered')
  t.equal(created.body.emailing_attempt_made, true, 'an attempt was made, though it failed')
})
