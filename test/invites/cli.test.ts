import t from 'tap'
import { loadConfig } from '../../src/config.js'
import { apiKeyStream, userStream } from '../../src/accounts/events.js'
import { inviteStream } from '../../src/invites/events.js'
import { openEventLog } from '../../src/storage.js'
import { runCli, startServer, exited } from '../support/cli.js'
import { expiredInvite } from '../support/invites.js'
import { tempDir } from '../support/temp.js'

const json = (run: { stdout: string }) => JSON.parse(run.stdout)

t.test('orgs create, an invite over HTTP, invites accept: the new user\'s key works; a deleted or expired invite is refused; every invite, user and key event names who acted', async (t) => {
  const env = { HEDGELOG_DATA_DIR: tempDir(t) }
  t.equal((await runCli(['init', '--json'], env)).code, 0)
  const made = await runCli(['orgs', 'create', '--name', 'Beta Corp', '--json'], env)
  t.equal(made.code, 0, made.stderr)
  const beta = json(made)
  t.match(beta, { organization_id: /^[0-9a-f-]{36}$/, user_uuid: /^[0-9a-f-]{36}$/, project_id: Number, environment_id: Number, project_api_key: /^phc_/, personal_api_key: /^phx_/ })
  const server = await startServer([], env)
  t.teardown(async () => { server.child.kill('SIGTERM'); await exited(server.child) })
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.address}${path}`, {
      method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : null,
    })
    return { status: response.status, body: (response.status === 204 ? null : await response.json()) as any }
  }
  const org = await call(beta.personal_api_key, 'GET', '/api/organizations/@current/')
  t.match(org.body, { id: beta.organization_id, name: 'Beta Corp', membership_level: 15 })
  const invite = await call(beta.personal_api_key, 'POST', `/api/organizations/${beta.organization_id}/invites/`, { target_email: 'auditor@example.com', level: 1 })
  t.equal(invite.status, 201)

  const accepted = await runCli(['invites', 'accept', invite.body.id, '--first-name', 'Audrey', '--json'], env)
  t.equal(accepted.code, 0, accepted.stderr)
  const auditor = json(accepted)
  t.match(auditor, { organization_id: beta.organization_id, email: 'auditor@example.com', level: 1, personal_api_key: /^phx_/ })
  const me = await call(auditor.personal_api_key, 'GET', '/api/users/@me/')
  t.equal(me.status, 200, 'the new key works against the running server')
  t.match(me.body, { email: 'auditor@example.com', first_name: 'Audrey', organization: { id: beta.organization_id } })
  const again = await runCli(['invites', 'accept', invite.body.id, '--first-name', 'Audrey'], env)
  t.equal(again.code, 1)
  t.match(again.stderr, /The provided invite ID is not valid/)

  const readOnly = await runCli(['keys', 'create', '--user', 'auditor@example.com', '--scopes', 'dashboard:read', '--json'], env)
  t.equal(readOnly.code, 0, readOnly.stderr)
  const reader = json(readOnly)
  t.equal(reader.user_uuid, auditor.user_uuid)
  t.equal((await call(reader.personal_api_key, 'GET', `/api/environments/${beta.environment_id}/dashboards/`)).status, 200)
  t.equal((await call(reader.personal_api_key, 'POST', `/api/environments/${beta.environment_id}/dashboards/`, { name: 'x' })).status, 403, 'held to its scopes')
  const wrongOwner = await runCli(['keys', 'revoke', reader.id, '--user', beta.user_uuid], env)
  t.equal(wrongOwner.code, 1, 'a key is revoked only for its own user')
  t.equal((await runCli(['keys', 'revoke', reader.id, '--user', 'auditor@example.com'], env)).code, 0)
  // The server learns of the revocation from the log, which another process wrote.
  const deadline = Date.now() + 5000
  let status = 0
  while (Date.now() < deadline && (status = (await call(reader.personal_api_key, 'GET', `/api/environments/${beta.environment_id}/dashboards/`)).status) !== 401) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.equal(status, 401, 'the revoked key stops working once the server has read the revocation')

  const second = await call(beta.personal_api_key, 'POST', `/api/organizations/${beta.organization_id}/invites/`, { target_email: 'late@example.com' })
  t.equal((await call(beta.personal_api_key, 'DELETE', `/api/organizations/${beta.organization_id}/invites/${second.body.id}/`)).status, 204)
  const deleted = await runCli(['invites', 'accept', second.body.id, '--first-name', 'Late'], env)
  t.equal(deleted.code, 1)
  t.match(deleted.stderr, /The provided invite ID is not valid/)
  const log = await openEventLog(loadConfig(env))
  t.teardown(() => log.close())
  const old = await expiredInvite(log, { organizationId: beta.organization_id, createdBy: beta.user_uuid, email: 'old@example.com' })
  const expired = await runCli(['invites', 'accept', old.inviteId, '--first-name', 'Old'], env)
  t.equal(expired.code, 1)
  t.match(expired.stderr, /This invite has expired\. Please ask your admin for a new one\./)
  t.match((await runCli(['keys', 'create', '--user', 'old@example.com', '--scopes', '*'], env)).stderr, /no user old@example.com/, 'no user was made for it')

  const session = await runCli(['keys', 'create', '--user', 'auditor@example.com', '--unscoped', '--json'], env)
  t.equal(session.code, 0, session.stderr)
  const sessionKey = json(session).personal_api_key
  const own = await call(sessionKey, 'POST', '/api/personal_api_keys/', { label: 'laptop', scopes: ['*'] })
  t.equal(own.status, 201)
  t.equal((await call(sessionKey, 'DELETE', `/api/personal_api_keys/${own.body.id}/`)).status, 204)
  const actors = async (stream: string) => {
    const recorded: [string, unknown][] = []
    for await (const event of log.readStream(stream)) recorded.push([event.type, event.metadata?.['actor']])
    return recorded
  }
  t.same(await actors(inviteStream(invite.body.id)), [['InviteCreated', beta.user_uuid], ['InviteAccepted', 'cli']])
  t.same(await actors(inviteStream(second.body.id)), [['InviteCreated', beta.user_uuid], ['InviteDeleted', beta.user_uuid]])
  t.same(await actors(userStream(auditor.user_uuid)), [['UserCreated', 'cli']])
  t.same(await actors(apiKeyStream(auditor.personal_api_key_id)), [['PersonalApiKeyCreated', 'cli']])
  t.same(await actors(apiKeyStream(reader.id)), [['PersonalApiKeyCreated', 'cli'], ['PersonalApiKeyRevoked', 'cli']])
  t.same(await actors(apiKeyStream(own.body.id)), [['PersonalApiKeyCreated', auditor.user_uuid], ['PersonalApiKeyRevoked', auditor.user_uuid]])
  const unknown = await runCli(['keys', 'create', '--user', 'nobody@example.com', '--scopes', '*'], env)
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /no user nobody@example.com/)
  const nameless = await runCli(['orgs', 'create'], env)
  t.equal(nameless.code, 1)
  t.match(nameless.stderr, /--name/)
})
