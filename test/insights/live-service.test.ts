import t from 'tap'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

const DAY = 86_400_000

interface Insight {
  id: number
  result: Array<{ label: string; data: number[]; breakdown_value?: string }> | null
  is_cached: boolean
  last_refresh: string | null
  query_status: Record<string, unknown> | null
  query: { source: Record<string, unknown> }
}

t.test('a saved trends insight is answered live on a started service: fresh after each capture, merges and late events included, equal to the query engine', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string; personal_api_key: string; environment_id: number }
  const server = await startServer([], env)
  t.teardown(async () => { server.child.kill('SIGTERM'); await exited(server.child) })
  const api = `${server.address}/api/environments/${init.environment_id}`
  const headers = { authorization: `Bearer ${init.personal_api_key}`, 'content-type': 'application/json' }
  const capture = async (batch: object[]) => {
    const response = await fetch(`${server.address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: init.project_api_key, batch }) })
    t.equal(response.status, 200)
  }
  const now = Date.now()
  const day = (back: number, hour = 12) => new Date(Math.floor((now - back * DAY) / DAY) * DAY + hour * 3_600_000).toISOString()
  await capture([
    { event: '$pageview', distinct_id: 'ann', timestamp: day(1), properties: { $browser: 'Firefox' } },
    { event: '$pageview', distinct_id: 'anon-1', timestamp: day(1, 13), properties: { $browser: 'Firefox' } },
    { event: '$pageview', distinct_id: 'bob', timestamp: day(2), properties: { $browser: 'Safari' } },
  ])
  const query = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], breakdownFilter: { breakdown: '$browser' }, dateRange: { date_from: '-7d' } } }
  const created = await (await fetch(`${api}/insights/`, { method: 'POST', headers, body: JSON.stringify({ name: 'Visitors', query, saved: true }) })).json() as Insight
  const read = async (): Promise<Insight> => (await fetch(`${api}/insights/${created.id}/`, { headers })).json() as Promise<Insight>
  const engine = async (source: Record<string, unknown>) =>
    ((await (await fetch(`${api}/query/`, { method: 'POST', headers, body: JSON.stringify({ query: source, refresh: 'force_blocking' }) })).json()) as { results: unknown }).results
  const until = async (what: string, test: (insight: Insight) => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<Insight> => {
    const started = Date.now()
    for (;;) {
      const insight = await read()
      if (await test(insight)) return insight
      if (Date.now() - started > timeoutMs) {
        t.fail(`${what} within ${timeoutMs} ms: ${JSON.stringify(insight).slice(0, 600)}`)
        return insight
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const series = (insight: Insight) => Object.fromEntries((insight.result ?? []).map((one) => [one.label, one.data.slice(-3)]))

  const first = await read()
  t.equal(first.is_cached, false, 'the first read finds no live answer yet, and computes nothing (force_cache)')
  const live = await until('a live answer', (insight) => insight.is_cached && insight.query_status === null && insight.result !== null)
  t.same(series(live), { Firefox: [0, 2, 0], Safari: [1, 0, 0] })
  t.same(live.result, await engine(query.source), 'the live answer is the engine\'s')

  const captured = Date.now()
  await capture([{ event: '$pageview', distinct_id: 'cat', properties: { $browser: 'Safari' } }])
  const fresh = await until('the new event in the live answer', (insight) => series(insight)['Safari']?.[2] === 1, 5000)
  t.ok(Date.parse(fresh.last_refresh!) >= captured - 1000, `last_refresh is the time of the newest event included (${fresh.last_refresh})`)
  t.equal(fresh.is_cached, true)

  await capture([
    { event: '$identify', distinct_id: 'ann', properties: { $anon_distinct_id: 'anon-1' } },
    { event: '$pageview', distinct_id: 'dan', timestamp: day(5), properties: { $browser: 'Firefox' } },
  ])
  const merged = await until('the merge and the late event in the live answer', async (insight) =>
    series(insight)['Firefox']?.[1] === 1 && JSON.stringify(insight.result) === JSON.stringify(await engine(query.source)))
  t.same(series(merged), { Firefox: [0, 1, 0], Safari: [1, 0, 1] }, 'ann and anon-1 are one person now: one Firefox visitor yesterday')
  t.equal(merged.result!.find((one) => one.label === 'Firefox')!.data.at(-6), 1, 'the late event counts on its own day')

  const status = await (await fetch(`${api}/insights/live/`, { headers })).json() as { serving: { events: number; update_us_per_event: number; caught_up: boolean }; queries: Array<{ kind: string; size: number; last_event_at: string }> }
  t.match(status.serving, { caught_up: true }, 'the serving generation is live')
  t.ok(status.serving.events >= 6, `it applied every event (${status.serving.events})`)
  t.ok(status.serving.update_us_per_event > 0, `and reports what an event costs to apply (${status.serving.update_us_per_event} µs)`)
  t.match(status.queries, [{ kind: 'TrendsQuery' }])
  t.ok(status.queries[0]!.size > 0, `the query reports the size of what it keeps (${status.queries[0]!.size})`)

  const edited = { ...query, source: { ...query.source, breakdownFilter: undefined, dateRange: { date_from: '-14d' } } }
  await fetch(`${api}/insights/${created.id}/`, { method: 'PATCH', headers, body: JSON.stringify({ query: edited }) })
  const rebuilt = await until('a live answer of the edited query', (insight) => insight.is_cached && insight.result?.length === 1 && insight.result[0]!.data.length === 15)
  t.same(rebuilt.result, await engine(edited.source), 'the edited query is answered live, as the engine answers it')
})
