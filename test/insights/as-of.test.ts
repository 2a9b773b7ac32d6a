import t from 'tap'
import { liveDataDir, moment } from '../audit/support/live.js'

const DAY = 86_400_000

interface Series {
  label: string
  data: number[]
  breakdown_value?: string
}

/**
 * An insight on a dashboard, read after its events arrived; then more events (a merge of two
 * persons among them), its query edited, the dashboard's filters changed. As of a moment just
 * after that first read, the API and the CLI answer the definition and the results of then.
 */
t.test('an insight and its dashboard as of a moment: the definition and the results then, merges and edits after it left out', async (t) => {
  const { api, cli, init, server } = await liveDataDir(t)
  const capture = async (batch: object[]) => {
    const response = await fetch(`${server.address}/batch/`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: init.project_api_key, batch }),
    })
    t.equal(response.status, 200)
  }
  const now = Date.now()
  const day = (back: number, hour = 12) => new Date(Math.floor((now - back * DAY) / DAY) * DAY + hour * 3_600_000).toISOString()
  const dashboard = (await api('POST', '/dashboards/', { name: 'Visitors' })).json
  await api('PATCH', `/dashboards/${dashboard.id}/`, { filters: { date_from: '-14d' } })
  const query = {
    kind: 'InsightVizNode',
    source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], breakdownFilter: { breakdown: '$browser' }, dateRange: { date_from: '-7d' } },
  }
  const created = await api('POST', '/insights/', { name: 'Visitors', query, saved: true, dashboards: [dashboard.id] })
  t.equal(created.status, 201, 'the insight is created')
  const detail = `/insights/${created.json.id}/`

  await capture([
    { event: '$pageview', distinct_id: 'ann', timestamp: day(1), properties: { $browser: 'Firefox', $set: { plan: 'pro' } } },
    { event: '$pageview', distinct_id: 'anon-1', timestamp: day(1, 13), properties: { $browser: 'Firefox' } },
    { event: '$pageview', distinct_id: 'bob', timestamp: day(2), properties: { $browser: 'Safari' } },
    { event: '$pageview', distinct_id: 'bob', timestamp: day(10), properties: { $browser: 'Safari' } },
  ])
  const total = (result: Series[] | null) => (result ?? []).reduce((sum, one) => sum + one.data.reduce((a, b) => a + b, 0), 0)
  const until = async <T>(what: string, read: () => Promise<T>, test: (value: T) => boolean): Promise<T> => {
    const started = Date.now()
    for (;;) {
      const value = await read()
      if (test(value)) return value
      if (Date.now() - started > 20_000) throw new Error(`${what}: ${JSON.stringify(value).slice(0, 400)}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const first = await until('the insight answers over the first events', async () => (await api('GET', detail)).json,
    (insight) => insight.is_cached === true && insight.query_status === null && total(insight.result) === 3)
  const tileOf = (answer: any) => answer.tiles.find((tile: any) => tile.insight?.id === created.json.id)
  const firstDashboard = await until('the dashboard answers over the first events', async () => (await api('GET', `/dashboards/${dashboard.id}/`)).json,
    (answer) => tileOf(answer)?.is_cached === true && tileOf(answer).insight.query_status === null && total(tileOf(answer).insight.result) === 4)
  const byFirst = Object.fromEntries((first.result as Series[]).map((one) => [one.label, one.data.slice(-3)]))
  t.same(byFirst, { Firefox: [0, 2, 0], Safari: [1, 0, 0] }, 'ann and anon-1 are two visitors yet')
  const time = await moment()

  await capture([
    { event: '$identify', distinct_id: 'ann', properties: { $anon_distinct_id: 'anon-1' } },
    { event: '$pageview', distinct_id: 'cat', timestamp: day(1), properties: { $browser: 'Safari' } },
  ])
  await until('the merge in the live answer', async () => (await api('GET', detail)).json,
    (insight) => total(insight.result) === 3 && (insight.result as Series[]).find((one) => one.label === 'Safari')!.data.at(-2) === 1)
  const edited = { ...query, source: { ...query.source, breakdownFilter: undefined, dateRange: { date_from: '-30d' } } }
  t.equal((await api('PATCH', detail, { name: 'All visitors', query: edited })).status, 200)
  t.equal((await api('PATCH', `/dashboards/${dashboard.id}/`, { filters: { date_from: '-3d' } })).status, 200)

  const past = await api('GET', `${detail}?as_of=${encodeURIComponent(time)}`)
  t.equal(past.status, 200, 'as of the moment')
  t.same(past.json.query, query, 'the query as it was then')
  t.equal(past.json.name, 'Visitors')
  t.same(past.json.result, first.result, 'the results as they were then: the merge after the moment left out')
  for (const field of ['columns', 'timezone', 'resolved_date_range', 'filters_hash', 'is_cached', 'last_refresh', 'query_status', 'hasMore']) {
    t.same(past.json[field], first[field], `${field} as it was then`)
  }
  t.same(past.json, first, 'the whole answer, as the API gave it then')

  const pastDashboard = await api('GET', `/dashboards/${dashboard.id}/?as_of=${encodeURIComponent(time)}`)
  t.equal(pastDashboard.status, 200)
  t.same(pastDashboard.json.filters, { date_from: '-14d' }, 'the dashboard\'s filters then')
  t.same(tileOf(pastDashboard.json).insight.result, tileOf(firstDashboard).insight.result, 'the tile\'s results then, under the dashboard\'s filters then')
  t.same(tileOf(pastDashboard.json).insight.query, tileOf(firstDashboard).insight.query, 'the tile\'s query then')
  t.same(pastDashboard.json, firstDashboard, 'the whole dashboard, as the API gave it then')

  const run = await cli(['audit', 'insight', String(created.json.id), '--at', time, '--json'])
  t.equal(run.code, 0, run.stderr)
  const printed = JSON.parse(run.stdout)
  t.same(printed.query, query, 'the CLI prints the definition then')
  t.same(printed.result, first.result, 'and the same results')
  t.equal(printed.last_refresh, first.last_refresh)
  const text = await cli(['audit', 'insight', String(created.json.id), '--at', time])
  t.match(text.stdout, /"result": \[/, 'in plain text too')

  const invalid = {
    type: 'validation_error', code: 'invalid_input', detail: 'Enter a valid ISO 8601 date or date-time, e.g. 2024-05-01T12:00:00Z.', attr: 'as_of',
  }
  const bad = await api('GET', `${detail}?as_of=yesterday`)
  t.equal(bad.status, 400)
  t.same(bad.json, invalid, 'an unparsable moment is refused as the other resources refuse it')
  const badDashboard = await api('GET', `/dashboards/${dashboard.id}/?as_of=2024-13-45`)
  t.equal(badDashboard.status, 400)
  t.same(badDashboard.json, invalid)
  const before = await api('GET', `${detail}?as_of=2001-01-01T00:00:00Z`)
  t.equal(before.status, 404, 'before the insight existed')
  t.same(before.json, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })
})
