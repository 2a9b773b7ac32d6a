import t from 'tap'
import { runCli } from '../support/cli.js'
import { crashBetweenSteps, eventually, killed } from '../support/crash-points.js'

t.test('a tile move cut between its source and its destination is finished after the restart', async (t) => {
  const { env, first, start } = await crashBetweenSteps(t, 'tile-move:moved-out')
  const source = await first.call('POST', '/dashboards/', { name: 'source' })
  const destination = await first.call('POST', '/dashboards/', { name: 'destination' })
  const withTile = await first.call('PATCH', `/dashboards/${source.body.id}/`, { tiles: [{ text: { body: 'moving' } }] })
  const tile = withTile.body.tiles[0].id
  await t.rejects(first.call('PATCH', `/dashboards/${source.body.id}/move_tile/`, { tile: { id: tile }, toDashboard: destination.body.id }), 'the process dies mid-move')
  await killed(first.server.child)
  t.equal(first.server.child.signalCode, 'SIGKILL', 'killed as by kill -9')

  const second = await start('')
  const tilesOf = async (id: number) => (await second.call('GET', `/dashboards/${id}/`)).body.tiles.map((x: { id: number }) => x.id)
  t.ok(await eventually(async () => (await tilesOf(destination.body.id)).includes(tile)), 'the destination gets the tile')
  t.same(await tilesOf(source.body.id), [], 'the source does not keep it')
  t.same(await tilesOf(destination.body.id), [tile], 'once')
  const verify = await runCli(['verify'], env)
  t.equal(verify.code, 0, verify.stdout + verify.stderr)
})

t.test('a flag create cut between its key claim and its flag is finished after the restart', async (t) => {
  const { env, first, start } = await crashBetweenSteps(t, 'flag-create:key-claimed')
  await t.rejects(first.call('POST', '/feature_flags/', { key: 'half-made', filters: { groups: [{ rollout_percentage: 30 }] } }), 'the process dies mid-create')
  await killed(first.server.child)

  const second = await start('')
  const find = async () => (await second.call('GET', '/feature_flags/')).body.results.filter((flag: { key: string }) => flag.key === 'half-made')
  t.ok(await eventually(async () => (await find()).length === 1), 'the flag the claim decided is created')
  t.match((await find())[0], { key: 'half-made', filters: { groups: [{ rollout_percentage: 30 }] } })
  const again = await second.call('POST', '/feature_flags/', { key: 'half-made' })
  t.equal(again.status, 400, 'and it holds its key')
  const other = await second.call('POST', '/feature_flags/', { key: 'after-restart' })
  t.equal(other.status, 201)
  const verify = await runCli(['verify'], env)
  t.equal(verify.code, 0, verify.stdout + verify.stderr)
})

t.test('an environment create cut between its project\'s count and its own stream is finished after the restart', async (t) => {
  const { env, first, start } = await crashBetweenSteps(t, 'environment-create:counted')
  const project = (await runCli(['init', '--json'], env)).stdout
  const projectId = JSON.parse(project).project_id
  const create = (call: typeof first.call) => call('POST', `/api/projects/${projectId}/environments/`, { name: 'Staging' })
  await t.rejects(create(first.call), 'the process dies mid-create')
  await killed(first.server.child)

  const second = await start('')
  const staging = async () => (await second.call('GET', `/api/projects/${projectId}/environments/`)).body.results.filter((e: { name: string }) => e.name === 'Staging')
  t.ok(await eventually(async () => (await staging()).length === 1), 'the environment the project counted is created')
  t.match((await staging())[0].api_token, /^phc_/)
  const verify = await runCli(['verify'], env)
  t.equal(verify.code, 0, verify.stdout + verify.stderr)
})

t.test('a key change cut between its claim and the flag leaves the flag as it was, and the claim is given up at once after the restart', async (t) => {
  const { env, first, start } = await crashBetweenSteps(t, 'flag-update:key-claimed')
  const flag = await first.call('POST', '/feature_flags/', { key: 'before' })
  t.equal(flag.status, 201)
  await t.rejects(first.call('PATCH', `/feature_flags/${flag.body.id}/`, { key: 'after' }), 'the process dies mid-change')
  await killed(first.server.child)

  const second = await start('')
  t.equal((await second.call('GET', `/feature_flags/${flag.body.id}/`)).body.key, 'before', 'the flag is unchanged')
  t.equal((await second.call('POST', '/feature_flags/', { key: 'before' })).status, 400, 'it keeps its key')
  const other = await second.call('POST', '/feature_flags/', { key: 'after' })
  t.equal(other.status, 201, 'the key claimed by the dead process is free at once')
  const verify = await runCli(['verify'], env)
  t.equal(verify.code, 0, verify.stdout + verify.stderr)
})
