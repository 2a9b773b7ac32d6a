import t, { type Test } from 'tap'
import { integrityWorld } from '../support/integrity.js'

const TRENDS = {
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' } },
}
const LAYOUTS = { sm: { x: 0, y: 2, w: 6, h: 5, minW: 3, minH: 5 }, xs: { x: 0, y: 4, w: 1, h: 5 } }

const setup = async (t: Test) => {
  const w = await integrityWorld(t)
  const insights = `/api/environments/${w.installation.environment_id}/insights/`
  const board = async (body: Record<string, unknown>) => (await w.api.post(w.dashboards, body)).body.id as number
  return { ...w, insights, board }
}

t.test('a dashboard PATCH sets an insight tile\'s layouts and color, and the tile keeps its insight', async (t) => {
  const w = await setup(t)
  const a = await w.board({ name: 'a' })
  const insight = (await w.api.post(w.insights, { name: 'Views', query: TRENDS, dashboards: [a] })).body
  const tile = insight.dashboard_tiles[0].id
  const patched = await w.api.patch(`${w.dashboards}${a}/`, { tiles: [{ id: tile, layouts: LAYOUTS, color: 'purple', is_cached: true, order: 3 }] })
  t.equal(patched.status, 200)
  t.match(patched.body.tiles, [{ id: tile, layouts: LAYOUTS, color: 'purple', insight: { id: insight.id, name: 'Views' } }])
  t.match((await w.api.get(`${w.dashboards}${a}/`)).body.tiles[0], { layouts: LAYOUTS, color: 'purple' }, 'a read shows the same')
})

t.test('move_tile moves an insight tile with its style, and the destination\'s filters apply to it', async (t) => {
  const w = await setup(t)
  const a = await w.board({ name: 'a' })
  const b = await w.board({ name: 'b', filters: { date_from: '-30d' } })
  const insight = (await w.api.post(w.insights, { name: 'Views', query: TRENDS, dashboards: [a] })).body
  const tile = insight.dashboard_tiles[0].id
  await w.api.patch(`${w.dashboards}${a}/`, { tiles: [{ id: tile, layouts: LAYOUTS, color: 'blue' }] })
  const moved = await w.legacyApi.patch(`${w.dashboards}${a}/move_tile/`, { tile: { id: tile }, toDashboard: b })
  t.equal(moved.status, 200)
  t.same(moved.body.tiles, [], 'the source no longer shows it')
  const destination = (await w.api.get(`${w.dashboards}${b}/`)).body
  t.match(destination.tiles, [{ id: tile, layouts: LAYOUTS, color: 'blue', insight: { id: insight.id, query: { source: { dateRange: { date_from: '-30d' } } } } }])
  t.same((await w.api.get(`${w.insights}${insight.id}/`)).body.dashboards, [b])
})
