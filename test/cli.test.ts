import t from 'tap'
import { spawn } from 'node:child_process'
import { cliCommand, exited, runCli, startServer } from './support/cli.js'
import { tempDir } from './support/temp.js'

t.test('init prints the ids and keys once, and a second run keeps the organization', async (t) => {
  const env = { HEDGELOG_DATA_DIR: tempDir(t) }
  const first = await runCli(['init', '--json'], env)
  t.equal(first.code, 0, first.stderr)
  const a = JSON.parse(first.stdout)
  t.match(a, {
    organization_id: /^[0-9a-f-]{36}$/, user_uuid: /^[0-9a-f-]{36}$/, project_id: Number, environment_id: Number,
    project_api_key: /^phc_/, personal_api_key: /^phx_/,
  })
  const b = JSON.parse((await runCli(['init', '--json'], env)).stdout)
  t.same([b.organization_id, b.user_uuid, b.project_id, b.environment_id, b.project_api_key], [a.organization_id, a.user_uuid, a.project_id, a.environment_id, a.project_api_key])
  t.not(b.personal_api_key, a.personal_api_key, 'a later run issues a fresh key')
})

t.test('keys create issues a key with exactly the scopes asked for, and keys revoke revokes it', async (t) => {
  const env = { HEDGELOG_DATA_DIR: tempDir(t) }
  const before = await runCli(['keys', 'create', '--scopes', 'dashboard:read', '--json'], env)
  t.equal(before.code, 1)
  t.match(before.stderr, /run `hedgelog init` first/)
  await runCli(['init', '--json'], env)
  const created = await runCli(['keys', 'create', '--scopes', 'dashboard:read,subscription:read', '--json'], env)
  t.equal(created.code, 0, created.stderr)
  const key = JSON.parse(created.stdout)
  t.same(key.scopes, ['dashboard:read', 'subscription:read'])
  t.match(key.personal_api_key, /^phx_/)
  const bad = await runCli(['keys', 'create', '--scopes', 'dashboard:fly', '--json'], env)
  t.equal(bad.code, 1)
  t.equal(bad.stderr, 'hedgelog: Invalid scope: dashboard:fly\n')
  t.equal((await runCli(['keys', 'revoke', key.id], env)).code, 0)
  const unknown = await runCli(['keys', 'revoke', '01JUNKNOWNKEY0000000000000'], env)
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /not found/)
})

t.test('a bad configuration value stops start-up with one line naming the variable', async (t) => {
  const run = await runCli(['serve'], { PORT: 'abc', HEDGELOG_DATA_DIR: tempDir(t) })
  t.equal(run.code, 1)
  t.equal(run.stderr, 'hedgelog: invalid configuration: PORT must be a whole number from 0 to 65535 (got "abc")\n')
  const roles = await runCli(['serve', '--roles', 'api,cooking'], { HEDGELOG_DATA_DIR: tempDir(t) })
  t.equal(roles.code, 1)
  t.match(roles.stderr, /unknown role: cooking/)
})

t.test('a running server answers health, accepts a key issued by the CLI at once, and stops on SIGTERM', async (t) => {
  const env = { HEDGELOG_DATA_DIR: tempDir(t) }
  const server = await startServer([], env)
  t.teardown(() => { server.child.kill('SIGKILL') })
  const health = await fetch(`${server.address}/_health`)
  t.equal(health.status, 200)
  t.match(await health.json(), { status: 'ok', eventLog: 'sqlite', readStore: 'sqlite' })
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout)
  const me = await fetch(`${server.address}/api/users/@me/`, { headers: { authorization: `Bearer ${init.personal_api_key}` } })
  t.equal(me.status, 200, 'the new key works straight away')
  t.equal(((await me.json()) as { uuid: string }).uuid, init.user_uuid)
  const key = JSON.parse((await runCli(['keys', 'create', '--scopes', 'dashboard:read', '--json'], env)).stdout)
  const denied = await fetch(`${server.address}/api/users/@me/`, { headers: { authorization: `Bearer ${key.personal_api_key}` } })
  t.equal(denied.status, 403, 'and is held to its scopes')
  server.child.kill('SIGTERM')
  t.equal(await exited(server.child), 0, 'graceful shutdown exits cleanly')
  t.match(server.output(), /shutting down/)
})

t.test('roles can run in separate processes on the same data', async (t) => {
  const env = { HEDGELOG_DATA_DIR: tempDir(t) }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout)
  const api = await startServer(['--roles', 'api'], env)
  t.teardown(() => { api.child.kill('SIGKILL') })
  const projector = spawn(...cliCommand(['serve', '--roles', 'projector,scheduler'], true), { env: { ...process.env, ...env, LOG_LEVEL: 'warn' }, stdio: 'ignore' })
  t.teardown(() => { projector.kill('SIGKILL') })
  // The projector process starts from nothing; the API process answers once the keys are projected.
  let status = 0
  for (let attempt = 0; attempt < 60 && status !== 200; attempt++) {
    status = (await fetch(`${api.address}/api/users/@me/`, { headers: { authorization: `Bearer ${init.personal_api_key}` } })).status
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250))
  }
  t.equal(status, 200, 'the API process reads what the projector process built')
})
