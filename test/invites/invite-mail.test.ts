import t from 'tap'
import { buildApp } from '../../src/app.js'
import { smtpMailer } from '../../src/mail/mailer.js'
import { world } from '../support/world.js'
import { closedPort } from '../support/closed-port.js'
import { smtpServer } from '../support/smtp.js'

t.test('with SMTP configured, an invite is e-mailed to its address and names the command that accepts it', async (t) => {
  const w = await world(t)
  const smtp = await smtpServer(t)
  const mailer = smtpMailer(smtp.url, 'Hedgelog <hedgelog@example.com>')
  t.teardown(() => mailer.close())
  const app = await buildApp({ log: w.log, store: w.store, models: w.models, projections: w.projections, roles: ['api'], mailer })
  t.teardown(() => app.close())
  const created = await app.inject({
    method: 'POST', url: `/api/organizations/${w.installation.organization_id}/invites/`, headers: w.bearer(w.key.value),
    payload: { target_email: 'ann@example.com', first_name: 'Ann', level: 1, message: 'Welcome aboard' },
  })
  t.equal(created.statusCode, 201)
  const inviteId = created.json().id as string
  for (let i = 0; i < 100 && smtp.received.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  t.equal(smtp.received.length, 1, 'one e-mail was sent')
  const [mail] = smtp.received
  t.same(mail!.to, ['ann@example.com'])
  t.match(mail!.data, /^Subject: .*invited you to join/m)
  const body = mail!.data.replace(/=\r\n/g, '')
  t.match(body, `npx hedgelog invites accept ${inviteId} --first-name "Ann"`, 'the body names the command, with the invite id')
  t.match(body, 'Welcome aboard', 'and carries the inviter\'s message')
})

t.test('an SMTP server that cannot be reached does not stop the invite', async (t) => {
  const w = await world(t)
  const mailer = smtpMailer(`smtp://127.0.0.1:${await closedPort()}`, 'Hedgelog <hedgelog@example.com>')
  t.teardown(() => mailer.close())
  const app = await buildApp({ log: w.log, store: w.store, models: w.models, projections: w.projections, roles: ['api'], mailer })
  t.teardown(() => app.close())
  const created = await app.inject({
    method: 'POST', url: `/api/organizations/${w.installation.organization_id}/invites/`, headers: w.bearer(w.key.value),
    payload: { target_email: 'bob@example.com', level: 1 },
  })
  t.equal(created.statusCode, 201, 'the invite is created and answered')
})
