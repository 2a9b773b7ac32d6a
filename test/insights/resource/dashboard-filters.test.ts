import t, { type Test } from 'tap'
import { captureAndSettle, event } from '../../projections/support/captured.js'
import { insightsWorld } from './support/insights-world.js'

const TRENDS = {
  kind: 'InsightVizNode',
  source: {
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signup' }], interval: 'day',
    dateRange: { date_from: '2024-03-01', date_to: '2024-03-03' },
  },
}
const CHROME = [{ key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }]
const at = (day: number) => `2024-03-0${day}T10:00:00.000Z`

/** A world with signups on three days (two in Chrome), an insight and the dashboard it is on. */
const withInsightOnDashboard = async (t: Test, filters: Record<string, unknown>) => {
  const w = await insightsWorld(t)
  await captureAndSettle(w.log, w.models, w.installation.environment_id, [
    event('signup', 'ann', { timestamp: at(1), properties: { $browser: 'Chrome' } }),
    event('signup', 'bob', { timestamp: at(2), properties: { $browser: 'Firefox' } }),
    event('signup', 'cat', { timestamp: at(3), properties: { $browser: 'Chrome' } }),
  ])
  const dashboard = (await w.api.post(w.dashboards, { name: 'Growth', filters })).body
  const insight = (await w.api.post(w.base, { name: 'Signups', query: TRENDS, dashboards: [dashboard.id] })).body
  const tileOf = async (refresh = 'force_blocking') => {
    const read = await w.api.get(`${w.dashboards}${dashboard.id}/?refresh=${refresh}`)
    return read.body.tiles.find((tile: { insight: { id: number } | null }) => tile.insight?.id === insight.id)
  }
  return { ...w, dashboard, insight, tileOf }
}

t.test('a dashboard\'s dates replace the date range of its insights\' queries', async (t) => {
  const w = await withInsightOnDashboard(t, { date_from: '2024-03-02', date_to: '2024-03-03' })
  const tile = await w.tileOf()
  t.match(tile.insight.result, [{ data: [1, 1], count: 2 }])
  t.same(tile.insight.query.source.dateRange, { date_from: '2024-03-02', date_to: '2024-03-03' }, 'the tile shows the query it ran')
  const alone = (await w.api.get(`${w.base}${w.insight.id}/?refresh=true`)).body
  t.match(alone.result, [{ data: [1, 1, 1], count: 3 }], 'the insight read alone keeps its own range')
  t.not(alone.filters_hash, tile.insight.filters_hash, 'and its own cache key')
})

t.test('a dashboard\'s properties hold together with the query\'s own', async (t) => {
  const w = await withInsightOnDashboard(t, { properties: CHROME })
  const tile = await w.tileOf()
  t.match(tile.insight.result, [{ data: [1, 0, 1], count: 2 }])
  t.same(tile.insight.query.source.properties, CHROME)
})

t.test('changing a dashboard\'s filters changes what its tiles show', async (t) => {
  const w = await withInsightOnDashboard(t, {})
  t.match((await w.tileOf()).insight.result, [{ count: 3 }])
  const patched = await w.api.patch(`${w.dashboards}${w.dashboard.id}/`, { filters: { date_from: '2024-03-03', date_to: '2024-03-03', properties: CHROME } })
  t.equal(patched.status, 200)
  const tile = await w.tileOf()
  t.match(tile.insight.result, [{ data: [1], count: 1 }])
  t.equal(tile.is_cached, false, 'the filtered query is a new cache entry')
  t.equal((await w.tileOf('force_cache')).is_cached, true, 'which the next read finds')
})
