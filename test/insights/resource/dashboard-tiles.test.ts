import t, { type Test } from 'tap'
import { context } from '../../support/world.js'
import { insightsWorld } from './support/insights-world.js'
import { client } from '../../support/client.js'
import { addMember } from '../../support/members.js'
import { issueApiKey } from '../../../src/accounts/commands.js'
import { handleCommand } from '../../../src/kernel/handle-command.js'
import { insightDecider } from '../../../src/insights/decider.js'
import { insightStream } from '../../../src/insights/events.js'

const TRENDS = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] } }

const setup = async (t: Test) => {
  const { base: insights, ...w } = await insightsWorld(t)
  const { api, dashboards } = w
  const board = async (name: string) => (await api.post(dashboards, { name })).body.id as number
  const tilesOf = async (id: number) => (await api.get(`${dashboards}${id}/`)).body.tiles as { id: number; insight: { id: number } | null; text: unknown }[]
  const legacyKey = await issueApiKey(w.log, { userUuid: w.installation.user_uuid, scopes: null, label: 'legacy' }, context())
  // move_tile takes no scoped key.
  const legacy = client(w.app, w.bearer(legacyKey.value))
  return { ...w, legacy, insights, board, tilesOf }
}

t.test('dashboards on create put a tile of the insight on each, and the dashboard shows the insight', async (t) => {
  const { api, insights, dashboards, board, tilesOf } = await setup(t)
  const a = await board('a')
  const b = await board('b')
  const created = await api.post(insights, { name: 'On two', query: TRENDS, dashboards: [a, b, a] })
  t.equal(created.status, 201)
  t.same(created.body.dashboards, [a, b])
  t.equal(created.body.dashboard_tiles.length, 2)
  t.match(created.body.dashboard_tiles, [{ id: Number, dashboard_id: a, deleted: false }, { id: Number, dashboard_id: b, deleted: false }])
  const [tile] = await tilesOf(a)
  t.match(tile, {
    id: created.body.dashboard_tiles[0].id, dashboard_id: a, text: null, order: 0, last_refresh: null, is_cached: false,
    insight: { id: created.body.id, short_id: created.body.short_id, name: 'On two', query: TRENDS, result: null, dashboards: [a, b] },
  })
  const dashboard = await api.get(`${dashboards}${a}/`)
  t.same(dashboard.body.tiles[0].insight, created.body, 'the tile shows the full insight, as the insights API does')
})

t.test('PATCH dashboards replaces the set: tiles come on, go off, and the same tile comes back', async (t) => {
  const { api, insights, board, tilesOf } = await setup(t)
  const a = await board('a')
  const b = await board('b')
  const c = await board('c')
  const { body } = await api.post(insights, { name: 'moving', dashboards: [a, b] })
  const firstTile = body.dashboard_tiles[0].id
  const moved = await api.patch(`${insights}${body.id}/`, { dashboards: [b, c] })
  t.equal(moved.status, 200)
  t.same(moved.body.dashboards, [b, c])
  t.same(await tilesOf(a), [], 'off a')
  t.equal((await tilesOf(c))[0]?.insight?.id, body.id, 'on c')
  const back = await api.patch(`${insights}${body.id}/`, { dashboards: [a, b, c] })
  t.same(back.body.dashboards, [a, b, c])
  t.equal((await tilesOf(a))[0]?.id, firstTile, 'the tile it had on a is restored, not a new one')
  const none = await api.patch(`${insights}${body.id}/`, { dashboards: [] })
  t.same(none.body.dashboards, [])
  t.same(none.body.dashboard_tiles, [])
  for (const id of [a, b, c]) t.same(await tilesOf(id), [], `nothing left on ${id}`)
})

t.test('dashboard_tiles is read-only and a PATCH without dashboards leaves them be', async (t) => {
  const { api, insights, board } = await setup(t)
  const a = await board('a')
  const { body } = await api.post(insights, { name: 'x', dashboards: [a] })
  const patched = await api.patch(`${insights}${body.id}/`, { name: 'y', dashboard_tiles: [] })
  t.same(patched.body.dashboards, [a])
  t.same(patched.body.dashboard_tiles, body.dashboard_tiles)
})

t.test('a tile removed, restyled or moved on the dashboard shows in the insight\'s dashboards', async (t) => {
  const { api, insights, dashboards, board, legacy } = await setup(t)
  const a = await board('a')
  const b = await board('b')
  const { body } = await api.post(insights, { name: 'x', dashboards: [a] })
  const tile = body.dashboard_tiles[0].id
  await api.patch(`${dashboards}${a}/`, { tiles: [{ id: tile, color: 'blue' }] })
  t.equal((await api.get(`${dashboards}${a}/`)).body.tiles[0].color, 'blue')
  t.equal((await legacy.patch(`${dashboards}${a}/move_tile/`, { tile: { id: tile }, toDashboard: b })).status, 200)
  t.same((await api.get(`${insights}${body.id}/`)).body.dashboards, [b], 'the moved tile is on b now')
  await api.patch(`${dashboards}${b}/`, { tiles: [{ id: tile, deleted: true }] })
  t.same((await api.get(`${insights}${body.id}/`)).body.dashboards, [], 'a tile deleted on the dashboard is gone')
  const again = await api.patch(`${insights}${body.id}/`, { dashboards: [b] })
  t.same(again.body.dashboard_tiles, [{ id: tile, dashboard_id: b, deleted: false }], 'and comes back through the insight')
})

t.test('deleting an insight takes its tiles off every dashboard; restoring does not put them back', async (t) => {
  const { api, insights, dashboards, board, tilesOf } = await setup(t)
  const a = await board('a')
  const { body } = await api.post(insights, { name: 'doomed', dashboards: [a] })
  await api.patch(`${dashboards}${a}/`, { tiles: [{ text: { body: 'a note' } }] })
  await api.patch(`${insights}${body.id}/`, { deleted: true })
  t.same((await tilesOf(a)).map((tile) => tile.text !== null), [true], 'only the text card is left')
  const restored = await api.patch(`${insights}${body.id}/`, { deleted: false })
  t.same(restored.body.dashboards, [])
  const onAgain = await api.patch(`${insights}${body.id}/`, { dashboards: [a] })
  t.same(onAgain.body.dashboards, [a])
})

t.test('a tile whose insight is deleted is not shown, and the order counts only what is shown', async (t) => {
  const { api, insights, dashboards, board, log, models, installation } = await setup(t)
  const a = await board('a')
  const first = await api.post(insights, { name: 'first', dashboards: [a] })
  await api.post(insights, { name: 'second', dashboards: [a] })
  // Deleted as a dashboard's deletion deletes it, so its tile stays on this dashboard.
  const written = await handleCommand(log, insightDecider, insightStream(first.body.id), {
    type: 'DeleteByDashboard', dashboardId: 0, changeId: 'test', actor: installation.user_uuid, at: new Date().toISOString(),
  }, context())
  await models.settled(written.position, 'insights', String(first.body.id))
  const tiles = (await api.get(`${dashboards}${a}/`)).body.tiles
  t.same(tiles.map((tile: { insight: { name: string }; order: number }) => [tile.insight.name, tile.order]), [['second', 0]])
})

t.test('the caller must be able to edit a dashboard to put an insight on it or take it off', async (t) => {
  const { api, insights, dashboards, board, log, models, app, installation, key } = await setup(t)
  const locked = await board('locked')
  await api.patch(`${dashboards}${locked}/`, { restriction_level: 37 })
  const member = await addMember({ log, models, app, installation, key })
  const theirs = client(app, member.headers)
  const refused = await theirs.post(insights, { name: 'no', dashboards: [locked] })
  t.equal(refused.status, 403)
  t.same(refused.body, { type: 'authentication_error', code: 'permission_denied', detail: `You don't have permission to add insights to dashboard: ${locked}`, attr: null })
  const mine = await api.post(insights, { name: 'mine', dashboards: [locked] })
  const off = await theirs.patch(`${insights}${mine.body.id}/`, { dashboards: [] })
  t.equal(off.status, 403)
  t.match(off.body.detail, /remove insights from dashboard/)
  t.same((await api.get(`${insights}${mine.body.id}/`)).body.dashboards, [locked], 'nothing changed')
  const deleted = await theirs.patch(`${insights}${mine.body.id}/`, { deleted: true })
  t.equal(deleted.status, 200, 'deleting the insight is not a dashboard edit')
})

t.test('a full dashboard takes no more insight tiles', async (t) => {
  const { api, insights, dashboards, board } = await setup(t)
  const full = await board('full')
  await api.patch(`${dashboards}${full}/`, { tiles: Array.from({ length: 100 }, (_, i) => ({ text: { body: `card ${i}` } })) })
  const refused = await api.post(insights, { name: 'no room', dashboards: [full] })
  t.equal(refused.status, 400)
  t.equal(refused.body.attr, 'tiles')
  t.equal((await api.get(insights)).body.count, 0)
})

t.test('a dashboard deleted with delete_insights deletes the insights that live only there, and its restoring restores them', async (t) => {
  const { api, insights, dashboards, board } = await setup(t)
  const a = await board('a')
  const b = await board('b')
  const only = await api.post(insights, { name: 'only on a', dashboards: [a] })
  const shared = await api.post(insights, { name: 'on a and b', dashboards: [a, b] })
  const elsewhere = await api.post(insights, { name: 'only on b', dashboards: [b] })
  const deleted = await api.patch(`${dashboards}${a}/`, { deleted: true, delete_insights: true })
  t.equal(deleted.status, 200)
  t.equal((await api.get(`${insights}${only.body.id}/`)).status, 404, 'the insight only on a is deleted')
  t.same((await api.get(`${insights}${shared.body.id}/`)).body.dashboards, [b], 'the shared one stays, on b alone')
  t.equal((await api.get(`${insights}${elsewhere.body.id}/`)).status, 200)
  const activity = await api.get(`${insights}${only.body.id}/activity/`)
  t.equal(activity.body.results[0].activity, 'deleted')
  const restored = await api.patch(`${dashboards}${a}/`, { deleted: false })
  t.equal(restored.status, 200)
  t.same(restored.body.tiles.map((tile: { insight: { name: string } }) => tile.insight.name), ['only on a', 'on a and b'])
  t.equal((await api.get(`${insights}${only.body.id}/`)).status, 200, 'restored with its dashboard')
})

t.test('a dashboard deleted without delete_insights leaves its insights, off that dashboard', async (t) => {
  const { api, insights, dashboards, board } = await setup(t)
  const a = await board('a')
  const { body } = await api.post(insights, { name: 'survivor', dashboards: [a] })
  await api.patch(`${dashboards}${a}/`, { deleted: true })
  const after = await api.get(`${insights}${body.id}/`)
  t.equal(after.status, 200)
  t.same(after.body.dashboards, [], 'a deleted dashboard is not listed')
  await api.patch(`${dashboards}${a}/`, { deleted: false })
  t.same((await api.get(`${insights}${body.id}/`)).body.dashboards, [a], 'restoring the dashboard brings the tile back')
})

t.test('a duplicated dashboard points its copied tiles at the same insights', async (t) => {
  const { api, insights, dashboards, board } = await setup(t)
  const a = await board('a')
  const { body } = await api.post(insights, { name: 'shared', dashboards: [a] })
  const copy = await api.post(dashboards, { name: 'copy', use_dashboard: a })
  t.equal(copy.status, 201)
  t.equal(copy.body.tiles[0].insight.id, body.id)
  t.same((await api.get(`${insights}${body.id}/`)).body.dashboards, [a, copy.body.id])
})
