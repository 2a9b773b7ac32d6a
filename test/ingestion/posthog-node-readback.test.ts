import t from 'tap'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { postHogClient } from './support/posthog-client.js'

t.test('what posthog-node 4.10.2 sends is read back as persons, groups and events over HTTP', async (t) => {
  const env = { HEDGELOG_DATA_DIR: tempDir(t) }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string; personal_api_key: string; environment_id: number }
  const server = await startServer([], env)
  t.teardown(async () => {
    server.child.kill('SIGTERM')
    await exited(server.child)
  })
  const client = await postHogClient(init.project_api_key, { host: server.address, flushAt: 1, flushInterval: 0, fetchRetryCount: 0 })
  const errors: unknown[] = []
  client.on('error', (error) => errors.push(error))
  client.capture({ distinctId: 'anon-42', event: '$pageview', properties: { $current_url: 'https://shop.example/', $set_once: { first_seen_on: 'landing' } } })
  await client.flush()
  client.identify({ distinctId: 'user-42', properties: { email: 'ada@example.com', plan: 'pro' } })
  await client.flush()
  client.alias({ distinctId: 'user-42', alias: 'anon-42' })
  await client.flush()
  client.alias({ distinctId: 'user-42', alias: 'ada-crm-7' })
  await client.flush()
  client.groupIdentify({ groupType: 'company', groupKey: 'acme', properties: { name: 'Acme', seats: 12 } })
  await client.flush()
  client.capture({ distinctId: 'user-42', event: 'ordered', properties: { total: 30 }, groups: { company: 'acme' } })
  await client.shutdown()
  t.same(errors, [])

  const get = async (path: string) => {
    const response = await fetch(`${server.address}/api/environments/${init.environment_id}${path}`, { headers: { authorization: `Bearer ${init.personal_api_key}` } })
    return { status: response.status, body: (await response.json()) as any }
  }
  const eventually = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
    let value = await read()
    for (let i = 0; i < 150 && !done(value); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      value = await read()
    }
    return value
  }

  const persons = await eventually(() => get('/persons/?distinct_id=ada-crm-7'), (r) => r.body.results?.length === 1 && r.body.results[0].distinct_ids.length === 3)
  t.equal(persons.status, 200)
  const person = persons.body.results[0]
  t.same([...person.distinct_ids].sort(), ['ada-crm-7', 'anon-42', 'user-42'], 'the anonymous person was merged in by the first alias; the second added a third id')
  t.match(person.properties, { email: 'ada@example.com', plan: 'pro', first_seen_on: 'landing' })
  t.equal(person.is_identified, true)
  const byUuid = await get(`/persons/${person.uuid}/`)
  t.same(byUuid.body.distinct_ids, person.distinct_ids)
  t.same((await get('/persons/?distinct_id=anon-42')).body.results.map((p: { uuid: string }) => p.uuid), [person.uuid], 'the anonymous id finds the same person')

  const groups = await eventually(() => get('/groups/?group_type_index=0&group_key=acme'), (r) => r.status === 200 && JSON.stringify(r.body).includes('Acme'))
  t.equal(groups.status, 200)
  t.match(JSON.stringify(groups.body), /"seats":12/)

  const events = await eventually(() => get('/events/?distinct_id=user-42'), (r) => r.body.results?.some((e: { event: string }) => e.event === 'ordered'))
  const ordered = events.body.results.find((e: { event: string }) => e.event === 'ordered')
  t.match(ordered, { event: 'ordered', distinct_id: 'user-42', properties: { total: 30, $lib: 'posthog-node', $groups: { company: 'acme' } } })
  const pageviews = await get('/events/?event=$pageview')
  t.equal(pageviews.body.results.length, 1)
})
