import t from 'tap'
import { exited, runCli, startServer } from '../support/cli.js'
import { closedPort } from '../support/closed-port.js'
import { tempDir } from '../support/temp.js'

interface Init { project_api_key: string; personal_api_key: string; project_id: number; environment_id: number }

t.test('given a started service with its log captured, when keys and tokens travel in every place a client may put them, then none of them appears in the log', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off', HEDGELOG_AUTH_FAILURE_LIMITS: 'off' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as Init
  const scoped = JSON.parse((await runCli(['keys', 'create', '--scopes', 'project:read', '--json'], env)).stdout) as { personal_api_key: string }
  const server = await startServer([], { ...env, LOG_LEVEL: 'debug', HEDGELOG_SMTP_URL: `smtp://127.0.0.1:${await closedPort()}` })
  t.teardown(async () => { if (server.child.exitCode === null) server.child.kill('SIGTERM'); await exited(server.child) })
  const base = server.address
  const key = init.personal_api_key
  const token = init.project_api_key
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers }).then(async (r) => ({ status: r.status, text: await r.text() }))
  const post = (path: string, body: string, contentType: string) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body }).then(async (r) => ({ status: r.status, text: await r.text() }))

  const reset = await fetch(`${base}/api/environments/${init.environment_id}/reset_token/`, { method: 'PATCH', headers: { authorization: `Bearer ${key}` } })
  t.equal(reset.status, 200)
  const newToken = (await reset.json() as { api_token: string }).api_token
  const payload = (tok: string) => Buffer.from(JSON.stringify({ event: 'logged', distinct_id: 'u', properties: { token: tok } })).toString('base64')

  t.equal((await get(`/api/users/@me/?personal%5Fapi%5Fkey=${key}`)).status, 200, 'an encoded parameter name authenticates')
  t.equal((await get(`/api/users/@me/?PERSONAL_API_KEY=${scoped.personal_api_key}`)).status, 401, 'a differently cased name does not, and fails')
  t.equal((await get(`/api/users/@me/?personal_api_key=${scoped.personal_api_key}x`)).status, 401, 'a wrong key fails')
  t.equal((await get(`/api/projects/${init.project_id}/`, { authorization: `Bearer ${scoped.personal_api_key}` })).status, 200, 'a key in the Authorization header')
  t.equal((await get(`/e/?data=${encodeURIComponent(payload(newToken))}`)).status, 200, 'GET /e/?data=<base64>')
  t.equal((await get(`/e/?d%61ta=${encodeURIComponent(payload(newToken))}&ip=1`)).status, 200, 'an encoded data name')
  t.equal((await get(`/e/?data=${encodeURIComponent(payload(token))}`)).status, 403, 'a retired token fails')
  t.equal((await post('/e/', `data=${encodeURIComponent(payload(newToken))}`, 'application/x-www-form-urlencoded')).status, 200, 'a form body')
  t.equal((await post('/capture/', `{"api_key":"${newToken}","event":`, 'application/json')).status, 400, 'a broken body')
  t.equal((await get(`/decide/?v=3&token=${newToken}`)).status < 500, true)
  t.equal((await get(`/array/${newToken}/config`)).status, 200, 'a token in the path')
  t.equal((await get(`/api/surveys/?token=${newToken}`)).status, 200)
  t.equal((await get(`/api/projects/${init.project_id}/?q=${encodeURIComponent(key)}`)).status, 401, 'a key under any other parameter name is not read, and fails')

  const sendJson = (method: string, path: string, body: string) =>
    fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, body }).then(async (r) => ({ status: r.status, text: await r.text() }))
  const dashboards = `/api/projects/${init.project_id}/dashboards/`
  t.equal((await sendJson('POST', dashboards, JSON.stringify({ personal_api_key: key, name: 'from the body' }))).status, 201, 'a key in a JSON body authenticates')
  t.equal((await sendJson('POST', dashboards, JSON.stringify({ personal_api_key: key, name: ['not', 'a', 'name'] }))).status, 400, 'a key in the body of a request that fails validation')
  t.equal((await sendJson('POST', dashboards, JSON.stringify({ personal_api_key: scoped.personal_api_key, name: 'd' }))).status, 403, 'a key in the body without the scope')
  t.equal((await sendJson('POST', dashboards, JSON.stringify({ personal_api_key: `${key}x`, name: 'd' }))).status, 401, 'a wrong key in the body')
  t.equal((await sendJson('POST', dashboards, `{"personal_api_key":"${key}","name":`)).status, 400, 'a key in a truncated body')
  const invite = await sendJson('POST', '/api/organizations/@current/invites/', JSON.stringify({ personal_api_key: key, target_email: 'someone@example.com', message: 'welcome' }))
  t.equal(invite.status, 201, 'an invite whose e-mail cannot be sent')
  for (let i = 0; i < 100 && !server.output().includes('invite e-mail not sent'); i++) await new Promise((resolve) => setTimeout(resolve, 100))

  server.child.kill('SIGTERM')
  await exited(server.child)
  const log = server.output()
  t.ok(log.includes('request completed'), 'requests were logged')
  t.match(log, /"level":50,[^\n]*"err":\{[^\n]*"msg":"invite e-mail not sent"/, 'the failed e-mail was logged as an error, with its cause')
  for (const [name, secret] of Object.entries({ key, scoped: scoped.personal_api_key, token, newToken })) {
    t.notOk(log.includes(secret), `the ${name} secret is nowhere in the log`)
    t.notOk(log.includes(secret.slice(4)), `nor its body without the prefix (${name})`)
  }
  for (const tok of [token, newToken]) t.notOk(log.includes(payload(tok).slice(0, 40)), 'no ingestion payload is logged')
})
