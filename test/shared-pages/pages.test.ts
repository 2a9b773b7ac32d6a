import t, { type Test } from 'tap'
import { createHash } from 'node:crypto'
import type { InsightResults } from '../../src/insights/results.js'
import { insightsWorld } from '../insights/resource/support/insights-world.js'

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'
const SCRIPT = '<script>alert(1)</script>'
const TRENDS = {
  kind: 'InsightVizNode',
  source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], breakdownFilter: { breakdown: '$browser' } },
}

/** Results as the query service would give them: two series, one broken down by a value someone typed. */
const results: InsightResults = async (environment, insight) => ({
  result: [
    { label: '$pageview', breakdown_value: SCRIPT, data: [1, 2, 3], labels: ['1-Jan', '2-Jan', '3-Jan'], days: ['2024-01-01', '2024-01-02', '2024-01-03'], count: 6, action: null, filter: {} },
    { label: '$pageview', breakdown_value: 'Firefox', data: [0, 4, 1], labels: ['1-Jan', '2-Jan', '3-Jan'], days: ['2024-01-01', '2024-01-02', '2024-01-03'], count: 5, action: null, filter: {} },
  ],
  hasMore: false, columns: null, types: null, hogql: null,
  last_refresh: '2024-01-08T12:00:00Z', cache_target_age: null, next_allowed_client_refresh: null, is_cached: true, query_status: null,
  timezone: 'UTC', resolved_date_range: { date_from: '2024-01-01T00:00:00Z', date_to: '2024-01-03T23:59:59Z' },
  filters_hash: `cache_${environment.id}_${insight.id}`,
})

const setup = async (t: Test, names: { dashboard?: string; card?: string; insight?: string } = {}) => {
  const w = await insightsWorld(t, { insightResults: results })
  const board = await w.api.post(w.dashboards, { name: names.dashboard ?? 'Growth', description: 'Weekly numbers\nfor the team' })
  const insight = await w.api.post(w.base, { name: names.insight ?? 'Views by browser', query: TRENDS, dashboards: [board.body.id] })
  const card = await w.api.patch(`${w.dashboards}${board.body.id}/`, { tiles: [{ text: { body: names.card ?? 'Read me\nsecond line' } }] })
  t.equal(card.status, 200)
  const dashboardToken = (await w.api.patch(`${w.dashboards}${board.body.id}/sharing/`, { enabled: true })).body.access_token as string
  const insightToken = (await w.api.patch(`${w.base}${insight.body.id}/sharing/`, { enabled: true })).body.access_token as string
  const get = (url: string, accept?: string) => w.app.inject({ method: 'GET', url, headers: accept === undefined ? {} : { accept } })
  return { ...w, board: board.body, insight: insight.body, dashboardToken, insightToken, get }
}

const styleBlocks = (html: string): string[] => [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!)

const hashSource = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`

/** The style attribute values on a page, decoded as the browser reads them. */
const styleAttributes = (html: string): string[] => [...new Set([...html.matchAll(/ style="([^"]*)"/g)].map((m) =>
  m[1]!.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')))]

/** A policy's directives by name, each with its sources. */
const directives = (policy: string): Record<string, string[]> =>
  Object.fromEntries(policy.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...sources]) => [name!, sources]))

t.test('negotiation: a browser gets the page, API clients keep the JSON', async (t) => {
  const s = await setup(t)
  for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/plain, */*']) {
    const answer = await s.get(`/shared/${s.dashboardToken}`, accept)
    t.equal(answer.statusCode, 200, String(accept))
    t.match(answer.headers['content-type'], /^application\/json/, String(accept))
    t.equal(answer.json().dashboard.name, 'Growth')
    t.equal(answer.headers['vary'], 'Accept')
  }
  for (const path of ['/shared/', '/shared_dashboard/', '/embedded/']) {
    const answer = await s.get(`${path}${s.dashboardToken}`, BROWSER)
    t.equal(answer.statusCode, 200, path)
    t.equal(answer.headers['content-type'], 'text/html; charset=utf-8', path)
    t.equal(answer.headers['vary'], 'Accept')
    t.match(answer.body, /^<!doctype html>/)
    t.match(answer.body, '<h1>Growth</h1>')
    t.match(answer.body, '<p class="description">Weekly numbers\nfor the team</p>', 'the description, its line break kept')
    t.match(answer.body, '<div class="text">Read me\nsecond line</div>', 'the text card as text')
    t.match(answer.body, '<h2>Views by browser</h2>')
    t.match(answer.body, '<time datetime="2024-01-08T12:00:00Z">8 Jan 2024, 12:00 UTC</time>', 'the last refresh')
    t.match(answer.body, /<figure class="chart" data-chart><svg[\s\S]*<\/svg><\/figure>/, 'the chart, drawn on the server')
    t.match(answer.body, '<td data-value="6">6</td>', 'a series total')
    t.notMatch(answer.body, /<script|<link|<img|<iframe|\ssrc=|\shref=/i, 'nothing to run or to load')
  }
})

t.test('a shared insight\'s page shows that insight alone', async (t) => {
  const s = await setup(t)
  const json = await s.get(`/shared/${s.insightToken}`)
  t.equal(json.json().insight.name, 'Views by browser')
  const page = await s.get(`/shared/${s.insightToken}`, BROWSER)
  t.equal(page.statusCode, 200)
  t.match(page.body, '<title>Views by browser</title>')
  t.match(page.body, `data-insight-id="${s.insight.id}" data-kind="TrendsQuery"`)
  t.equal(page.body.match(/<svg/g)?.length, 1)
  t.notMatch(page.body, 'Growth', 'not the dashboard it is on')
  t.match(page.body, '<td data-value="5">5</td>')
})

t.test('headers: a strict policy that allows the page\'s one style block by its hash, and framing only under /embedded/', async (t) => {
  const s = await setup(t)
  const shared = await s.get(`/shared/${s.dashboardToken}`, BROWSER)
  const [style, ...more] = styleBlocks(shared.body)
  t.same(more, [], 'one style block: the charts\' own are left out')
  const policy = shared.headers['content-security-policy'] as string
  t.match(policy, /^default-src 'none'; /)
  const attributes = styleAttributes(shared.body)
  t.ok(attributes.length > 0, 'the charts set their texts\' fonts in style attributes')
  t.ok(attributes.every((value) => /^font-size:\d+px;font-family:[^;]+;(font-weight:bold;)?$/.test(value)), attributes.join(' | '))
  const { 'style-src-attr': [unsafeHashes, ...attributeHashes] = [], ...rest } = directives(policy)
  t.same(rest, {
    'default-src': ["'none'"], 'style-src': [hashSource(style!)], 'base-uri': ["'none'"], 'form-action': ["'none'"], 'frame-ancestors': ["'none'"],
  })
  t.equal(unsafeHashes, "'unsafe-hashes'")
  t.same(attributeHashes.sort(), attributes.map(hashSource).sort(), 'exactly the style attributes the charts wrote, by hash')
  t.equal(shared.headers['x-content-type-options'], 'nosniff')
  t.equal(shared.headers['referrer-policy'], 'no-referrer')
  t.equal(shared.headers['x-frame-options'], 'DENY')
  t.equal((await s.get(`/shared_dashboard/${s.dashboardToken}`, BROWSER)).headers['content-security-policy'], policy, 'the legacy path is a page of its own too')

  const embedded = await s.get(`/embedded/${s.dashboardToken}`, BROWSER)
  t.equal(embedded.headers['content-security-policy'], policy.replace("frame-ancestors 'none'", 'frame-ancestors *'))
  t.equal(embedded.headers['x-frame-options'], undefined, 'any site may frame it')
  t.equal(embedded.headers['x-content-type-options'], 'nosniff')
  t.equal(embedded.headers['referrer-policy'], 'no-referrer')
})

t.test('a <script> in a dashboard name, a card body, an insight name or a breakdown value reaches the page only as text', async (t) => {
  const s = await setup(t, { dashboard: `${SCRIPT} board`, card: `card ${SCRIPT}\n"><img src=x onerror=alert(2)>`, insight: `${SCRIPT}'" views` })
  const json = await s.get(`/shared/${s.dashboardToken}`)
  t.equal(json.json().dashboard.name, `${SCRIPT} board`, 'the JSON keeps the text as it is')
  const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;'
  for (const token of [s.dashboardToken, s.insightToken]) {
    const page = (await s.get(`/embedded/${token}`, BROWSER)).body
    t.notMatch(page, /<script/i, 'no script element')
    t.notMatch(page, /<img/i, 'no element from a card')
    t.match(page, `<h2>${escaped}&#39;&quot; views</h2>`, 'the insight name')
    t.match(page, `<th scope="row">$pageview · ${escaped}</th>`, 'the breakdown value in the figures')
    const svg = page.match(/<svg[\s\S]*<\/svg>/)?.[0] ?? ''
    t.notMatch(svg, /<script|<img/i, 'the chart escapes the names and values it draws')
    if (token === s.dashboardToken) {
      t.match(page, `<h1>${escaped} board</h1>`, 'the dashboard name')
      t.match(page, `<title>${escaped} board</title>`)
      t.match(page, `<div class="text">card ${escaped}\n&quot;&gt;&lt;img src=x onerror=alert(2)&gt;</div>`, 'the card body')
    }
  }
})

t.test('a link that shares nothing is a 404 in both forms', async (t) => {
  const s = await setup(t)
  await s.api.patch(`${s.dashboards}${s.board.id}/sharing/`, { enabled: false })
  await s.api.patch(`${s.base}${s.insight.id}/sharing/`, { enabled: false })
  for (const token of [s.dashboardToken, s.insightToken, 'not-a-token']) {
    for (const path of ['/shared/', '/embedded/']) {
      const json = await s.get(`${path}${token}`, 'application/json')
      t.equal(json.statusCode, 404)
      t.match(json.headers['content-type'], /^application\/json/)
      t.match(json.json(), { type: 'invalid_request', code: 'not_found' })
      const page = await s.get(`${path}${token}`, BROWSER)
      t.equal(page.statusCode, 404)
      t.equal(page.headers['content-type'], 'text/html; charset=utf-8')
      t.match(page.body, '<h1>Not found</h1>')
      t.notMatch(page.body, 'Growth')
      t.match(page.headers['content-security-policy'], /^default-src 'none'; /)
      t.equal(page.headers['x-content-type-options'], 'nosniff')
      t.match(page.headers['content-security-policy'], path === '/embedded/' ? /frame-ancestors \*$/ : /frame-ancestors 'none'$/)
    }
  }
})

t.test('results not computed yet are said to be so, and the page still opens', async (t) => {
  const w = await insightsWorld(t)
  const board = await w.api.post(w.dashboards, { name: 'Fresh' })
  await w.api.post(w.base, { name: 'Not yet', query: TRENDS, dashboards: [board.body.id] })
  const token = (await w.api.patch(`${w.dashboards}${board.body.id}/sharing/`, { enabled: true })).body.access_token
  const page = await w.app.inject({ method: 'GET', url: `/shared/${token}`, headers: { accept: BROWSER } })
  t.equal(page.statusCode, 200)
  t.match(page.body, '<p class="refreshed">Not computed yet</p>')
  t.match(page.body, 'data-chart-pending')
})
