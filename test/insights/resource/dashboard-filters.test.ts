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

t.test('an insight read from its dashboard runs under the dashboard\'s filters and reports the tile\'s refresh', async (t) => {
  const w = await withInsightOnDashboard(t, { date_from: '2024-03-02', date_to: '2024-03-03' })
  const tile = await w.tileOf()
  const read = await w.api.get(`${w.base}${w.insight.id}/?from_dashboard=${w.dashboard.id}`)
  t.equal(read.status, 200)
  t.match(read.body, { result: [{ data: [1, 1], count: 2 }], is_cached: true, last_refresh: tile.last_refresh, filters_hash: tile.insight.filters_hash })
})

t.test('filters_override and tile_filters_override are laid over the dashboard\'s filters', async (t) => {
  const w = await withInsightOnDashboard(t, { date_from: '2024-03-02', date_to: '2024-03-03' })
  const path = `${w.base}${w.insight.id}/?refresh=true&from_dashboard=${w.dashboard.id}`
  const override = encodeURIComponent(JSON.stringify({ properties: CHROME }))
  t.match((await w.api.get(`${path}&filters_override=${override}`)).body.result, [{ data: [0, 1], count: 1 }])
  const tileOverride = encodeURIComponent(JSON.stringify({ date_from: '2024-03-01' }))
  t.match((await w.api.get(`${path}&tile_filters_override=${tileOverride}`)).body.result, [{ data: [1, 1, 1], count: 3 }])
  const alone = await w.api.get(`${w.base}${w.insight.id}/?refresh=true&filters_override=${override}`)
  t.match(alone.body.result, [{ data: [1, 0, 1], count: 2 }], 'an override applies without a dashboard too')
})

t.test('an override that is not a JSON object is refused, naming the parameter', async (t) => {
  const w = await withInsightOnDashboard(t, {})
  for (const name of ['filters_override', 'tile_filters_override']) {
    const read = await w.api.get(`${w.base}${w.insight.id}/?${name}=%7Bnope`)
    t.equal(read.status, 400)
    t.match(read.body, { type: 'validation_error', code: 'invalid_input', detail: `Invalid JSON passed in ${name} parameter`, attr: name })
  }
})

t.test('from_dashboard naming a dashboard the insight is not on, or none, is 404', async (t) => {
  const w = await withInsightOnDashboard(t, {})
  const other = (await w.api.post(w.dashboards, { name: 'Other' })).body
  t.equal((await w.api.get(`${w.base}${w.insight.id}/?from_dashboard=${other.id}`)).status, 404)
  t.equal((await w.api.get(`${w.base}${w.insight.id}/?from_dashboard=99999`)).status, 404)
  t.equal((await w.api.get(`${w.base}${w.insight.id}/?from_dashboard=abc`)).status, 404)
  await w.api.patch(`${w.dashboards}${w.dashboard.id}/`, { deleted: true })
  t.equal((await w.api.get(`${w.base}${w.insight.id}/?from_dashboard=${w.dashboard.id}`)).status, 404, 'a deleted dashboard')
})

t.test('a tile override keyed __proto__ is one unknown key, ignored as PostHog ignores it', async (t) => {
  const w = await withInsightOnDashboard(t, { date_from: '2024-03-02', date_to: '2024-03-03' })
  const path = `${w.base}${w.insight.id}/?refresh=true&from_dashboard=${w.dashboard.id}`
  const tileOverride = encodeURIComponent('{"__proto__": {"date_from": "2024-03-01", "properties": [{"key": "$browser", "value": "Chrome", "operator": "exact", "type": "event"}]}}')
  const read = await w.api.get(`${path}&tile_filters_override=${tileOverride}`)
  t.equal(read.status, 200)
  t.match(read.body.result, [{ data: [1, 1], count: 2 }], 'the dashboard\'s range, no property filter')
})
