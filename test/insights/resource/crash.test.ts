import t from 'tap'
import { runCli } from '../../support/cli.js'
import { crashBetweenSteps, eventually, killed } from '../../support/crash-points.js'

t.test('an insight create cut between its own stream and its dashboards is finished after the restart', async (t) => {
  const { env, first, start } = await crashBetweenSteps(t, 'insight-dashboards:decided')
  const a = await first.call('POST', '/dashboards/', { name: 'a' })
  const b = await first.call('POST', '/dashboards/', { name: 'b' })
  await t.rejects(first.call('POST', '/insights/', { name: 'half placed', dashboards: [a.body.id, b.body.id] }), 'the process dies mid-create')
  await killed(first.server.child)
  t.equal(first.server.child.signalCode, 'SIGKILL')

  const second = await start('')
  const placed = async () => {
    const list = await second.call('GET', '/insights/?search=half')
    return list.body.results[0]?.dashboards ?? []
  }
  t.ok(await eventually(async () => (await placed()).length === 2), 'both dashboards get the tile the insight decided')
  for (const dashboard of [a, b]) {
    const tiles = (await second.call('GET', `/dashboards/${dashboard.body.id}/`)).body.tiles
    t.equal(tiles.length, 1, 'once')
    t.equal(tiles[0].insight.name, 'half placed')
  }
  const verify = await runCli(['verify'], env)
  t.equal(verify.code, 0, verify.stdout + verify.stderr)
})

t.test('a dashboard deletion cut before its insights are deleted is finished after the restart', async (t) => {
  const { env, first, start } = await crashBetweenSteps(t, 'dashboard-insights:decided')
  const a = await first.call('POST', '/dashboards/', { name: 'a' })
  const insight = await first.call('POST', '/insights/', { name: 'only on a', dashboards: [a.body.id] })
  t.equal(insight.status, 201)
  await t.rejects(first.call('PATCH', `/dashboards/${a.body.id}/`, { deleted: true, delete_insights: true }), 'the process dies mid-delete')
  await killed(first.server.child)

  const second = await start('')
  t.equal((await second.call('GET', `/dashboards/${a.body.id}/`)).status, 404, 'the dashboard is deleted')
  t.ok(await eventually(async () => (await second.call('GET', `/insights/${insight.body.id}/`)).status === 404), 'and so is its insight')
  const verify = await runCli(['verify'], env)
  t.equal(verify.code, 0, verify.stdout + verify.stderr)
})
