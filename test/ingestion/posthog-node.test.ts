import t from 'tap'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { capturedEvents } from './support/log.js'
import { postHogClient } from './support/posthog-client.js'

t.test('posthog-node 4.10.2 sends to a started service and its events arrive in the log', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir }
  const init = await runCli(['init', '--json'], env)
  t.equal(init.code, 0, init.stderr)
  const { project_api_key: token } = JSON.parse(init.stdout) as { project_api_key: string }
  const server = await startServer([], env)
  t.teardown(async () => {
    server.child.kill('SIGTERM')
    await exited(server.child)
  })

  const errors: unknown[] = []
  const client = await postHogClient(token, { host: server.address, flushAt: 1, flushInterval: 0, fetchRetryCount: 0, requestTimeout: 5000 })
  client.on('error', (error) => errors.push(error))
  client.capture({ distinctId: 'user-1', event: 'signed up', properties: { plan: 'pro' } })
  client.identify({ distinctId: 'user-1', properties: { email: 'u@example.com' } })
  client.alias({ distinctId: 'user-1', alias: 'alias-1' })
  client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { name: 'Acme' } })
  client.capture({ distinctId: 'user-1', event: 'grouped', groups: { company: 'acme' } })
  await client.shutdown()
  t.same(errors, [], 'the client saw no error')

  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  t.teardown(() => log.close())
  const events = await capturedEvents(log)
  // posthog-node 4 prepares `capture` asynchronously, so its requests may overtake one another.
  const byName = new Map(events.map((e) => [e.event, e]))
  t.same([...byName.keys()].sort(), ['$create_alias', '$groupidentify', '$identify', 'grouped', 'signed up'], 'every call arrived once')
  t.equal(events.length, 5)
  t.match(byName.get('signed up'), { distinct_id: 'user-1', properties: { plan: 'pro', $lib: 'posthog-node', $lib_version: '4.10.2' }, uuid: /^[0-9a-f-]{36}$/ })
  t.match(byName.get('$identify')!.properties, { $set: { email: 'u@example.com' } })
  t.match(byName.get('$create_alias')!.properties, { alias: 'alias-1' })
  t.match(byName.get('$groupidentify')!.properties, { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } })
  t.match(byName.get('grouped')!.properties, { $groups: { company: 'acme' } })
  t.ok(events.every((e) => e.sent_at !== null), 'sent_at is carried')
})
