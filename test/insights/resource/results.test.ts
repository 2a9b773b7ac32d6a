import t from 'tap'
import { insightsWorld } from './support/insights-world.js'
import { notComputedResults, refreshMode, resultsCacheKey, type InsightResults, type RefreshMode } from '../../../src/insights/results.js'

const RESULT_FIELDS = [
  'result', 'hasMore', 'columns', 'types', 'hogql', 'last_refresh', 'cache_target_age', 'next_allowed_client_refresh', 'is_cached',
  'query_status', 'timezone', 'resolved_date_range', 'filters_hash',
]

t.test('by default no results are computed: PostHog\'s answer for a cache miss', async (t) => {
  const environment = { id: 3, organization: 'o', project_id: 3, api_token: 'phc_x', timezone: 'Europe/Berlin' }
  const insight = { query: { kind: 'HogQuery', code: 'return 1' }, filters: {} }
  const results = await notComputedResults(environment, insight as never, 'force_blocking')
  t.same(Object.keys(results).sort(), [...RESULT_FIELDS].sort())
  t.match(results, { result: null, last_refresh: null, is_cached: false, query_status: null, timezone: 'Europe/Berlin' })
  t.equal(results.filters_hash, resultsCacheKey(environment, insight))
  t.match(results.filters_hash, /^cache_[0-9a-f]{32}$/)
  t.not(resultsCacheKey(environment, { ...insight, query: { kind: 'HogQuery', code: 'return 2' } }), results.filters_hash, 'another query, another key')
  t.not(resultsCacheKey({ ...environment, timezone: 'UTC' }, insight), results.filters_hash, 'another timezone, another key')
})

t.test('?refresh= is read as PostHog reads it', async (t) => {
  t.equal(refreshMode(undefined), 'force_cache')
  for (const word of ['true', '1', 'yes', '', 'TRUE']) t.equal(refreshMode(word), 'force_blocking', word)
  for (const word of ['false', '0', 'no', 'sometimes']) t.equal(refreshMode(word), 'force_cache', word)
  t.equal(refreshMode('async'), 'async')
  t.equal(refreshMode('lazy_async'), 'lazy_async')
})

t.test('the injected function gives every result member of insights, lists and dashboard tiles', async (t) => {
  const asked: RefreshMode[] = []
  const computed: InsightResults = async (environment, insight, refresh) => {
    asked.push(refresh)
    return {
      result: [{ label: insight.name, data: [1, 2, 3] }], hasMore: false, columns: ['a'], types: ['Int'], hogql: 'SELECT 1',
      last_refresh: '2024-01-08T12:00:00Z', cache_target_age: '2024-01-08T18:00:00Z', next_allowed_client_refresh: '2024-01-08T12:15:00Z',
      is_cached: true, query_status: null, timezone: 'UTC', resolved_date_range: { date_from: '2024-01-01T00:00:00Z', date_to: '2024-01-08T23:59:59Z' },
      filters_hash: `cache_${environment.id}`,
    }
  }
  const { api, base, dashboards, installation } = await insightsWorld(t, { insightResults: computed })
  const environment = installation.environment_id
  const board = await api.post(dashboards, { name: 'board' })
  const created = await api.post(base, { name: 'computed', dashboards: [board.body.id] })
  t.match(created.body, {
    result: [{ label: 'computed', data: [1, 2, 3] }], hasMore: false, columns: ['a'], types: ['Int'], hogql: 'SELECT 1',
    last_refresh: '2024-01-08T12:00:00Z', is_cached: true, filters_hash: `cache_${environment}`,
    resolved_date_range: { date_from: '2024-01-01T00:00:00Z', date_to: '2024-01-08T23:59:59Z' },
  })
  t.same(asked, ['force_cache'], 'a create answers from the cache, as PostHog\'s default mode')
  await api.get(`${base}${created.body.id}/?refresh=true`)
  t.equal(asked.at(-1), 'force_blocking')
  await api.get(`${base}?refresh=async`)
  t.equal(asked.at(-1), 'async')
  const count = asked.length
  await api.get(`${base}?basic=true`)
  t.equal(asked.length, count, 'the basic shape computes nothing')
  const tile = (await api.get(`/api/environments/${environment}/dashboards/${board.body.id}/?refresh=blocking`)).body.tiles[0]
  t.equal(asked.at(-1), 'blocking', 'a dashboard asks for its tiles in its own mode')
  t.match(tile, { last_refresh: '2024-01-08T12:00:00Z', is_cached: true, insight: { result: [{ data: [1, 2, 3] }] } })
})
