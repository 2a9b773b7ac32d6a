import t from 'tap'
import { QueryService, TooManyQueries } from '../../src/insights/query/query-service.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { queryWorld, type SentEvent } from './support/query-world.js'

const pageview = (distinctId: string, at: string, properties: Record<string, unknown> = {}): SentEvent => ({ event: '$pageview', distinctId, at, properties })
const trends = (series: object[], extra: object = {}) => ({ query: { kind: 'TrendsQuery', series, ...extra } })
const JANUARY_FIRST_WEEK = { dateRange: { date_from: '2024-01-01', date_to: '2024-01-07' }, interval: 'day' }

/** PostHog's first trends example: three persons' pageviews around the first week of 2024. */
const TV1: SentEvent[] = [
  pageview('u1', '2024-01-01T10:00:00Z'), pageview('u1', '2024-01-01T12:00:00Z'), pageview('u2', '2024-01-01T23:30:00Z'),
  pageview('u2', '2024-01-03T00:15:00Z'), pageview('u3', '2024-01-07T23:59:59Z'), pageview('u3', '2024-01-08T00:00:01Z'),
]

t.test('TV1 through posthog-node and /query/: total, dau and a bold number', async (t) => {
  const api = await queryWorld(t)
  await api.send(TV1)
  const total = await api.query(trends([{ kind: 'EventsNode', event: '$pageview', math: 'total' }], JANUARY_FIRST_WEEK))
  t.equal(total.status, 200)
  t.match(total.body.results, [{ data: [3, 0, 1, 0, 0, 0, 1], count: 5, label: '$pageview', days: ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05', '2024-01-06', '2024-01-07'] }])
  t.equal(total.body.results[0].labels[0], '1-Jan-2024')
  const dau = await api.query(trends([{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], JANUARY_FIRST_WEEK))
  t.match(dau.body.results, [{ data: [2, 0, 1, 0, 0, 0, 1], count: 4 }])
  const bold = await api.query(trends([{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], { ...JANUARY_FIRST_WEEK, trendsFilter: { display: 'BoldNumber' } }))
  t.match(bold.body.results, [{ aggregated_value: 3, data: [], count: 0 }])
})

t.test('TV2: the environment\'s time zone draws the days', async (t) => {
  const api = await queryWorld(t)
  await api.settings({ timezone: 'America/New_York' })
  await api.send(['2024-01-01T04:59:00Z', '2024-01-01T05:00:00Z', '2024-01-02T03:00:00Z', '2024-01-03T04:30:00Z', '2024-01-03T05:00:00Z'].map((at) => pageview('u1', at)))
  const answer = await api.query(trends([{ kind: 'EventsNode', event: '$pageview' }], { dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' }, interval: 'day' }))
  t.equal(answer.status, 200)
  t.match(answer.body, { timezone: 'America/New_York', results: [{ days: ['2024-01-01', '2024-01-02'], data: [2, 1], count: 3 }] })
})

t.test('TV3: a breakdown keeps its limit, puts the rest in Other and missing values in the null bucket', async (t) => {
  const api = await queryWorld(t)
  const browsers = ['Chrome', 'Chrome', 'Chrome', 'Firefox', 'Firefox', 'Safari', 'Edge']
  await api.send(browsers.map((browser, i) => pageview(`b${i}`, `2024-01-01T1${i}:00:00Z`, { $browser: browser })))
  const range = { dateRange: { date_from: '2024-01-01', date_to: '2024-01-01' }, interval: 'day' }
  const limited = await api.query(trends([{ kind: 'EventsNode', event: '$pageview' }], { ...range, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 2 } }))
  t.equal(limited.status, 200)
  t.same(limited.body.results.map((series: { breakdown_value: string; data: number[] }) => [series.breakdown_value, series.data]), [
    ['Chrome', [3]], ['Firefox', [2]], ['$$_posthog_breakdown_other_$$', [2]],
  ])
  t.equal(limited.body.hasMore, true)
  const shown = await api.query(trends([{ kind: 'EventsNode', event: '$pageview' }], { ...range, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event', breakdown_limit: 2, breakdown_hide_other_aggregation: true } }))
  t.same(shown.body.results.map((series: { breakdown_value: string }) => series.breakdown_value), ['Chrome', 'Firefox'], 'Other hidden when asked')
})

t.test('TV3: events without the property, or with it empty, fall in the null bucket, after ordinary values; two series label theirs', async (t) => {
  const api = await queryWorld(t)
  await api.send([
    pageview('c1', '2024-01-01T10:00:00Z', { $browser: 'Chrome' }), pageview('c2', '2024-01-01T11:00:00Z', { $browser: 'Chrome' }),
    pageview('n1', '2024-01-01T12:00:00Z'), pageview('n2', '2024-01-01T13:00:00Z', { $browser: '' }),
    { event: 'signup', distinctId: 'c1', at: '2024-01-01T14:00:00Z', properties: { $browser: 'Chrome' } },
  ])
  const range = { dateRange: { date_from: '2024-01-01', date_to: '2024-01-01' }, interval: 'day', breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }
  const one = await api.query(trends([{ kind: 'EventsNode', event: '$pageview' }], range))
  t.same(one.body.results.map((series: { breakdown_value: string; data: number[] }) => [series.breakdown_value, series.data]), [
    ['Chrome', [2]], ['$$_posthog_breakdown_null_$$', [2]],
  ])
  t.equal(one.body.hasMore, false)
  const two = await api.query(trends([{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }], range))
  t.ok(two.body.results.some((series: { label: string }) => series.label === '$pageview - Chrome'), 'with two series each label names its event')
})

t.test('results are cached by PostHog\'s key and served per the refresh mode', async (t) => {
  const api = await queryWorld(t)
  await api.send(TV1)
  const body = trends([{ kind: 'EventsNode', event: '$pageview' }], JANUARY_FIRST_WEEK)
  const first = await api.query(body)
  t.match(first.body, { is_cached: false, cache_key: /^cache_[0-9a-f]{32}$/, query_status: null, error: null, timezone: 'UTC' })
  t.match(first.body.last_refresh, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/)
  const again = await api.query(body)
  t.match(again.body, { is_cached: true, cache_key: first.body.cache_key, last_refresh: first.body.last_refresh })
  t.equal((await api.query({ ...body, refresh: 'force_cache' })).body.is_cached, true, 'force_cache reads the cache')
  await api.send([pageview('u9', '2024-01-02T09:00:00Z')])
  t.match((await api.query(body)).body, { is_cached: true, results: [{ count: 5 }] }, 'a fresh cached result is served as it was')
  const forced = await api.query({ ...body, refresh: true })
  t.match(forced.body, { is_cached: false, results: [{ count: 6, data: [3, 1, 1, 0, 0, 0, 1] }] }, 'refresh=true computes again, with the new event')
  t.match((await api.query({ ...body, refresh: 'force_blocking' })).body, { is_cached: false })
  const other = await api.query(trends([{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], JANUARY_FIRST_WEEK))
  t.not(other.body.cache_key, first.body.cache_key, 'another query, another key')
})

t.test('a query run in the background answers 202, then its status, and can be cancelled', async (t) => {
  const api = await queryWorld(t)
  await api.send(TV1)
  const started = await api.query({ ...trends([{ kind: 'EventsNode', event: '$pageview' }], JANUARY_FIRST_WEEK), refresh: 'force_async', client_query_id: 'q-1' })
  t.equal(started.status, 202)
  t.match(started.body, { query_status: { id: 'q-1', query_async: true, complete: false, error: false, team_id: api.environmentId } })
  const headers = api.bearer(api.key.value)
  let status = await api.app.inject({ method: 'GET', url: `/api/environments/${api.environmentId}/query/q-1/`, headers })
  for (let i = 0; i < 50 && status.statusCode === 202; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    status = await api.app.inject({ method: 'GET', url: `/api/environments/${api.environmentId}/query/q-1/`, headers })
  }
  t.equal(status.statusCode, 200)
  t.match(status.json(), { query_status: { complete: true, error: false, results: { results: [{ count: 5 }] } } })
  t.match((await api.query(trends([{ kind: 'EventsNode', event: '$pageview' }], JANUARY_FIRST_WEEK))).body, { is_cached: true }, 'the background result is in the cache')
  const cancelled = await api.app.inject({ method: 'DELETE', url: `/api/environments/${api.environmentId}/query/q-1/`, headers })
  t.equal(cancelled.statusCode, 200)
  const gone = await api.app.inject({ method: 'GET', url: `/api/projects/${api.environmentId}/query/q-1/`, headers })
  t.equal(gone.statusCode, 404)
  t.same(gone.json(), { type: 'invalid_request', code: 'not_found', detail: 'Query q-1 not found for team', attr: null })
})

t.test('every malformed query answers 400 in PostHog\'s shape, never 500', async (t) => {
  const api = await queryWorld(t)
  const parseError = { type: 'invalid_request', code: 'parse_error', attr: null, detail: /^JSON parse error - / }
  const cases: [string, unknown, object][] = [
    ['no query', {}, { ...parseError, detail: /query\n {2}Field required/ }],
    ['unknown kind', { query: { kind: 'MadeUpQuery' } }, { ...parseError, detail: /Unknown query kind "MadeUpQuery"/ }],
    ['a bad math', trends([{ kind: 'EventsNode', event: 'x', math: 'sometimes' }]), { ...parseError, detail: /series\.0\.math/ }],
    ['a bad date', trends([{ kind: 'EventsNode' }], { dateRange: { date_from: 'yesterday-ish' } }), { ...parseError, detail: /dateRange\.date_from/ }],
    ['a bad operator', trends([{ kind: 'EventsNode' }], { properties: [{ type: 'event', key: 'a', operator: 'resembles', value: 1 }] }), { ...parseError, detail: /operator/ }],
    ['a bad interval', trends([{ kind: 'EventsNode' }], { interval: 'fortnight' }), { ...parseError, detail: /interval/ }],
    ['a query that is not an object', { query: 'TrendsQuery' }, parseError],
    ['a body that is a list', [1, 2], parseError],
    ['HogQL', { query: { kind: 'HogQLQuery', query: 'SELECT 1' } }, { type: 'validation_error', detail: /HogQL/ }],
    ['a cohort filter', trends([{ kind: 'EventsNode' }], { properties: [{ type: 'cohort', key: 'id', value: 3 }] }), { type: 'validation_error', detail: /cohort/i }],
    ['ten years by minute', trends([{ kind: 'EventsNode' }], { interval: 'minute', dateRange: { date_from: '-3650d' } }), { type: 'validation_error', attr: 'dateRange' }],
  ]
  for (const [name, body, expected] of cases) {
    const answer = await api.query(body)
    t.equal(answer.status, 400, name)
    t.match(answer.body, expected, name)
  }
  const mismatch = await api.query(trends([{ kind: 'EventsNode' }]), `/api/environments/${api.environmentId}/query/LifecycleQuery/`)
  t.match(mismatch, { status: 400, body: { code: 'parse_error', detail: /Query kind mismatch/ } })
  const matching = await api.query(trends([{ kind: 'EventsNode' }]), `/api/projects/${api.environmentId}/query/TrendsQuery/`)
  t.equal(matching.status, 200, 'the kind in the path may name the query\'s kind')
})

t.test('the query endpoint needs query:read', async (t) => {
  const api = await queryWorld(t)
  const body = trends([{ kind: 'EventsNode' }])
  const without = await api.issueKey(['dashboard:read'])
  const refused = await api.app.inject({ method: 'POST', url: `/api/environments/${api.environmentId}/query/`, headers: api.bearer(without.value), payload: body })
  t.equal(refused.statusCode, 403)
  const withScope = await api.issueKey(['query:read'])
  const allowed = await api.app.inject({ method: 'POST', url: `/api/environments/${api.environmentId}/query/`, headers: api.bearer(withScope.value), payload: body })
  t.equal(allowed.statusCode, 200)
})

t.test('more queries than the cap computing at once are refused with 429', async (t) => {
  const api = await queryWorld(t)
  const service = new QueryService(api.models, { maxRunning: 1 })
  const environment = (await api.models.get('environments', String(api.environmentId)))!
  const node = parseQueryNode({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode' }] })
  const [first, second] = await Promise.allSettled([service.answer(environment, node, 'force_blocking'), service.answer(environment, node, 'force_blocking')])
  t.equal(first.status, 'fulfilled')
  t.equal(second.status, 'rejected')
  const error = (second as PromiseRejectedResult).reason as TooManyQueries
  t.ok(error instanceof TooManyQueries)
  t.match(error, { status: 429, type: 'throttled_error', retryAfter: 1 })
  t.equal((await service.answer(environment, node, 'force_blocking')).status, 200, 'once the first is done, the next runs')
})

t.test('person properties are those of the event\'s time, or current ones when the query asks; merged ids are one person', async (t) => {
  const api = await queryWorld(t)
  await api.send([
    { event: '$pageview', distinctId: 'anon-1', at: '2024-01-01T10:00:00Z', properties: { $set: { plan: 'free' } } },
    { event: '$identify', distinctId: 'ada', at: '2024-01-02T09:00:00Z', properties: { $anon_distinct_id: 'anon-1' } },
    { event: '$pageview', distinctId: 'ada', at: '2024-01-02T10:00:00Z', properties: { $set: { plan: 'pro' } } },
  ])
  const query = {
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day',
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' }, breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
  }
  const byPlan = (body: { results: { breakdown_value: string; data: number[] }[] }) => Object.fromEntries(body.results.map((series) => [series.breakdown_value, series.data]))
  t.same(byPlan((await api.query({ query })).body), { free: [1, 0], pro: [0, 1] }, 'as they were at each event')
  const joined = await api.query({ query: { ...query, modifiers: { personsOnEventsMode: 'person_id_override_properties_joined' } } })
  t.same(byPlan(joined.body), { pro: [1, 1] }, 'as they are now')
  const dau = await api.query({ query: { ...query, breakdownFilter: null, series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], trendsFilter: { display: 'BoldNumber' } } })
  t.equal(dau.body.results[0].aggregated_value, 1, 'the anonymous and the identified id are one person')
})

t.test('a trends query of no series answers no results, with or without a compare period', async (t) => {
  const api = await queryWorld(t)
  await api.send(TV1)
  for (const extra of [JANUARY_FIRST_WEEK, { ...JANUARY_FIRST_WEEK, compareFilter: { compare: true } }, { dateRange: { date_from: 'all' } }]) {
    const answer = await api.query(trends([], extra))
    t.equal(answer.status, 200, `${JSON.stringify(extra)}: ${JSON.stringify(answer.body).slice(0, 200)}`)
    t.same(answer.body.results, [])
  }
})
