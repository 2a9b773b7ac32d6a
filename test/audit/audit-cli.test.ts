import t, { type Test } from 'tap'
import Database from 'better-sqlite3'
import { join } from 'node:path'
import { tempDir } from '../support/temp.js'
import { liveDataDir } from './support/live.js'

interface TrailLine {
  position: string
  stream: string
  type: string
  activity?: string
  changes?: Array<{ field: string | null; before: unknown; after: unknown }>
  data?: Record<string, any>
}

type Cli = Awaited<ReturnType<typeof liveDataDir>>['cli']

const trailOf = async (t: Test, cli: Cli, words: string[]): Promise<TrailLine[]> => {
  const run = await cli(['audit', ...words, '--json'])
  t.equal(run.code, 0, run.stderr)
  return JSON.parse(run.stdout) as TrailLine[]
}

const stateAt = async (t: Test, cli: Cli, words: string[], at: string): Promise<any> => {
  const run = await cli(['audit', ...words, '--at', at, '--json'])
  t.equal(run.code, 0, run.stderr)
  return JSON.parse(run.stdout)
}

t.test('audit prints the trail of a subscription, a flag and an environment, and their state at a log position', async (t) => {
  const { api, cli, init } = await liveDataDir(t)
  const dashboard = (await api('POST', '/dashboards/', { name: 'Numbers' })).json
  const subscription = (await api('POST', '/subscriptions/', {
    dashboard: dashboard.id, title: 'Weekly', target_type: 'email', target_value: 'ann@example.com',
    frequency: 'weekly', byweekday: ['monday'], start_date: '2099-01-05T09:00:00Z',
  })).json
  await api('PATCH', `/subscriptions/${subscription.id}/`, { title: 'Monthly', frequency: 'monthly', byweekday: null })
  await api('PATCH', `/subscriptions/${subscription.id}/`, { deleted: true })
  await api('PATCH', `/subscriptions/${subscription.id}/`, { deleted: false })
  const flag = (await api('POST', '/feature_flags/', { key: 'beta', filters: { groups: [{ rollout_percentage: 10 }] } })).json
  await api('PATCH', `/feature_flags/${flag.id}/`, { filters: { groups: [{ rollout_percentage: 90 }] } })
  await api('PATCH', `/feature_flags/${flag.id}/`, { deleted: true })
  await api('PATCH', '/', { name: 'Production' })

  const subscriptionTrail = await trailOf(t, cli, ['subscription', String(subscription.id)])
  t.same(subscriptionTrail.map((line) => line.activity), ['created', 'updated', 'deleted', 'restored'])
  t.ok(subscriptionTrail.every((line) => line.stream === `subscription-${subscription.id}` && /^\d+\/\d+$/.test(line.position)))
  t.match(subscriptionTrail[1]!.changes!.find((change) => change.field === 'frequency'), { before: 'weekly', after: 'monthly' })
  t.match(subscriptionTrail[1]!.changes!.find((change) => change.field === 'title'), { before: 'Weekly', after: 'Monthly' })

  const flagTrail = await trailOf(t, cli, ['flag', String(flag.id)])
  t.same(flagTrail.map((line) => line.activity), ['created', 'updated', 'deleted'])
  const [flagCreated, flagUpdated, flagDeleted] = flagTrail.map((line) => line.position)
  t.match(await stateAt(t, cli, ['flag', String(flag.id)], flagCreated!), { key: 'beta', deleted: false, filters: { groups: [{ rollout_percentage: 10 }] } })
  t.match(await stateAt(t, cli, ['flag', String(flag.id)], flagUpdated!), { deleted: false, filters: { groups: [{ rollout_percentage: 90 }] } })
  t.match(await stateAt(t, cli, ['flag', String(flag.id)], flagDeleted!), { deleted: true })
  const commitOnly = flagUpdated!.split('/')[0]!
  t.match(await stateAt(t, cli, [`flag-${flag.id}`], commitOnly), { filters: { groups: [{ rollout_percentage: 90 }] } }, 'a bare commit position, on the stream name')
  const beforeFlag = String(BigInt(flagCreated!.split('/')[0]!) - 1n)
  t.equal(await stateAt(t, cli, ['flag', String(flag.id)], beforeFlag), null, 'nothing before it was created')
  const notThen = await cli(['audit', 'flag', String(flag.id), '--at', beforeFlag])
  t.match(notThen.stdout, `flag-${flag.id} did not exist then`)

  const environmentTrail = await trailOf(t, cli, ['environment', String(init.environment_id)])
  t.equal(environmentTrail[0]!.activity, 'created')
  t.match(environmentTrail.at(-1)!.changes, [{ field: 'name', before: 'Default project', after: 'Production' }])
  const renamedAt = environmentTrail.at(-1)!.position
  const beforeRename = environmentTrail.at(-2)!.position
  t.equal((await stateAt(t, cli, ['environment', String(init.environment_id)], beforeRename)).name, 'Default project')
  t.equal((await stateAt(t, cli, ['environment', String(init.environment_id)], renamedAt)).name, 'Production')

  const keyTrail = await trailOf(t, cli, [`flagkey-${init.environment_id}-beta`])
  t.match(keyTrail, [{ type: 'FlagKeyClaimed', data: { flagId: flag.id } }], 'any other stream, event by event with its data')
  const keyClaimed = BigInt(keyTrail[0]!.position.split('/')[0]!)
  t.same(await stateAt(t, cli, [`flagkey-${init.environment_id}-beta`], String(keyClaimed - 1n)), [], 'a plain stream up to a position before its first event')
  t.equal((await stateAt(t, cli, [`flagkey-${init.environment_id}-beta`], String(keyClaimed))).length, 1)
  const text = await cli(['audit', 'subscription', String(subscription.id)])
  t.match(text.stdout, new RegExp(`^${subscriptionTrail[1]!.position}\\t\\S+\\t\\S+\\tupdated\\t.*title: "Weekly" -> "Monthly"`, 'm'), 'plain text: position, time, actor, verb, changes')
  t.match((await cli(['audit', 'flag', String(flag.id), '--at', 'then'])).stderr, /--at takes a log position/)
})

t.test('audit person DISTINCT_ID lists what built the person and shows it at a log position', async (t) => {
  const { cli, init, server } = await liveDataDir(t)
  const send = async (batch: unknown[]) => {
    const response = await fetch(`${server.address}/batch/`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: init.project_api_key, batch }),
    })
    t.equal(response.status, 200)
  }
  await send([{ event: '$pageview', distinct_id: 'anon-1', properties: { $set: { plan: 'free' } } }])
  await send([{ event: 'clicked', distinct_id: 'bob', properties: { $set: { plan: 'team' } } }])
  await send([{ event: '$identify', distinct_id: 'alice', properties: { $anon_distinct_id: 'anon-1', $set: { plan: 'pro' } } }])
  await send([{ event: 'upgraded', distinct_id: 'alice', properties: { $set_once: { first_plan: 'free' } } }])

  const trail = await trailOf(t, cli, ['person', 'alice'])
  t.same(trail.map((line) => line.type), ['$identify', 'upgraded'], 'its own events and the merge that named it; not bob')
  t.match(trail[0]!.data, { distinct_id: 'alice', $set: { plan: 'pro' } })
  t.match(trail[1]!.data, { $set_once: { first_plan: 'free' } })
  const anonymous = await trailOf(t, cli, ['person', 'anon-1'])
  t.same(anonymous.map((line) => line.type), ['$pageview', '$identify'], 'the anonymous id sees the merge too')

  const merged = await stateAt(t, cli, ['person', 'alice'], trail[0]!.position)
  t.match(merged, { properties: { plan: 'pro' }, is_identified: true })
  t.same([...merged.distinct_ids].sort(), ['alice', 'anon-1'])
  t.notOk('first_plan' in merged.properties, 'not yet the later $set_once')
  t.equal(await stateAt(t, cli, ['person', 'alice'], anonymous[0]!.position), null, 'no person had the id before the merge')
  t.match((await stateAt(t, cli, ['person', 'alice'], trail[1]!.position)).properties, { plan: 'pro', first_plan: 'free' })
})

t.test('rebuild --until a log position shows the read model as it stood there', async (t) => {
  const { api, cli } = await liveDataDir(t)
  const id = (await api('POST', '/dashboards/', { name: 'Draft' })).json.id as number
  await api('PATCH', `/dashboards/${id}/`, { name: 'First' })
  await api('PATCH', `/dashboards/${id}/`, { name: 'Second' })
  const positions = (await trailOf(t, cli, [`dashboard-${id}`])).map((line) => line.position)
  const cases = [[positions[1]!, 'First'], [positions[2]!.split('/')[0]!, 'Second'], [positions[0]!, 'Draft']] as const
  for (const [until, name] of cases) {
    const into = join(tempDir(t), 'rebuilt')
    const rebuilt = await cli(['rebuild', '--projection', 'dashboards', '--until', until, '--into', into, '--json'])
    t.equal(rebuilt.code, 0, rebuilt.stderr)
    t.equal(JSON.parse(rebuilt.stdout).until, until.includes('/') ? until : `${until}/${until}`)
    const db = new Database(join(into, 'readmodels.sqlite'), { readonly: true })
    const row = db.prepare('SELECT body FROM c_dashboards_v2_b1 WHERE id = ?').get(String(id)) as { body: string }
    db.close()
    t.equal(JSON.parse(row.body).name, name, `rebuild --until ${until}`)
  }
})
