import t from 'tap'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

interface Status {
  serving: { caught_up: boolean; entries: number } | null
  queries: Array<{ kind: string; size: number; too_large: boolean }>
}

t.test('past the live state\'s budget the largest query is left out and computed on reads; the others stay live', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off', HEDGELOG_LIVE_INSIGHTS_MAX_ENTRIES: '20' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string; personal_api_key: string; environment_id: number }
  const server = await startServer([], env)
  t.teardown(async () => { server.child.kill('SIGTERM'); await exited(server.child) })
  const api = `${server.address}/api/environments/${init.environment_id}`
  const headers = { authorization: `Bearer ${init.personal_api_key}`, 'content-type': 'application/json' }
  const batch = Array.from({ length: 60 }, (_, i) => ({ event: i % 2 === 0 ? '$pageview' : 'signed_up', distinct_id: `person-${i % 30}` }))
  t.equal((await fetch(`${server.address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: init.project_api_key, batch }) })).status, 200)
  const create = async (source: object) =>
    (await (await fetch(`${api}/insights/`, { method: 'POST', headers, body: JSON.stringify({ query: { kind: 'InsightVizNode', source }, saved: true }) })).json()) as { id: number }
  const trends = await create({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' } })
  const funnel = await create({ kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }], dateRange: { date_from: '-7d' } })
  const read = async (id: number) => (await fetch(`${api}/insights/${id}/?refresh=blocking`, { headers })).json() as Promise<{ is_cached: boolean; query_status: unknown; result: unknown }>
  let status: Status | null = null
  for (let i = 0; i < 200; i++) {
    await read(trends.id)
    await read(funnel.id)
    status = await (await fetch(`${api}/insights/live/`, { headers })).json() as Status
    if (status.serving?.caught_up && status.queries.length === 2) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.match(status?.queries.find((query) => query.kind === 'FunnelsQuery'), { too_large: true, size: 0 }, 'the funnel, which keeps every person\'s events, is left out')
  t.match(status?.queries.find((query) => query.kind === 'TrendsQuery'), { too_large: false }, 'the trends query stays live')
  t.ok(status!.serving!.entries <= 20, `what is kept fits the budget (${status!.serving!.entries} entries)`)
  t.match(await read(trends.id), { is_cached: true, query_status: null }, 'the trends insight is answered live')
  const computed = await (await fetch(`${api}/insights/${funnel.id}/?refresh=force_blocking`, { headers })).json() as { is_cached: boolean; result: unknown }
  t.equal(computed.is_cached, false, 'the funnel is computed on its read (a live answer is cached under any refresh mode)')
  t.match(computed.result, [{ count: 15 }, { count: 0 }], 'fifteen persons viewed a page; none of them signed up after')
})
