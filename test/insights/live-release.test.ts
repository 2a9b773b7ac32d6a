import t from 'tap'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

interface Status {
  serving: { queries: number; caught_up: boolean } | null
  building: object | null
  wanted: number
  queries: Array<{ cache_key: string; kind: string; size: number }>
}

interface Insight {
  id: number
  is_cached: boolean
  query_status: unknown
  result: unknown
}

t.test('a live query is let go, its state with it, soon after no saved insight keeps it; an edited query is built anew', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, HEDGELOG_RATE_LIMITS: 'off', HEDGELOG_LIVE_INSIGHTS_RESCAN_MS: '3600000' }
  const init = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string; personal_api_key: string; environment_id: number }
  const server = await startServer([], env)
  t.teardown(async () => { server.child.kill('SIGTERM'); await exited(server.child) })
  const api = `${server.address}/api/environments/${init.environment_id}`
  const headers = { authorization: `Bearer ${init.personal_api_key}`, 'content-type': 'application/json' }
  const call = async <T>(method: string, path: string, body?: object): Promise<T> => {
    const response = await fetch(`${api}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) })
    if (response.status >= 300) t.fail(`${method} ${path} answered ${response.status}: ${await response.text()}`)
    return response.json() as Promise<T>
  }
  const batch = [
    { event: '$pageview', distinct_id: 'ann' }, { event: 'signed_up', distinct_id: 'ann' }, { event: '$pageview', distinct_id: 'bob' },
  ]
  t.equal((await fetch(`${server.address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: init.project_api_key, batch }) })).status, 200)
  const until = async <T>(what: string, read: () => Promise<T>, test: (value: T) => boolean): Promise<T> => {
    const started = Date.now()
    for (;;) {
      const value = await read()
      if (test(value)) return value
      if (Date.now() - started > 20_000) {
        t.fail(`${what} within 20 s: ${JSON.stringify(value).slice(0, 400)}`)
        return value
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const status = () => call<Status>('GET', '/insights/live/')
  const kinds = (one: Status) => one.queries.map((query) => query.kind).sort()

  const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' } } }
  const funnel = { kind: 'InsightVizNode', source: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }], dateRange: { date_from: '-7d' } } }
  // Looked for again after each change (the periodic look is an hour away here); each is read at once, before that look.
  const visits = await call<Insight>('POST', '/insights/', { name: 'Visits', query: trends, saved: true })
  await call<Insight>('GET', `/insights/${visits.id}/`)
  const conversion = await call<Insight>('POST', '/insights/', { name: 'Conversion', query: funnel, saved: true })
  const both = await until('both queries served live', status, (one) => one.building === null && kinds(one).join() === 'FunnelsQuery,TrendsQuery' && one.queries.every((query) => query.size > 0))
  t.equal(both.wanted, 2)
  const trendsKey = both.queries.find((query) => query.kind === 'TrendsQuery')!.cache_key

  await call('PATCH', `/insights/${visits.id}/`, { deleted: true })
  const after = await until('the deleted insight\'s query let go', status, (one) => one.wanted === 1 && kinds(one).join() === 'FunnelsQuery')
  t.notOk(after.queries.some((query) => query.cache_key === trendsKey), 'nothing of the deleted insight\'s query is kept')
  t.equal(after.building, null, 'letting a query go builds nothing anew')

  const edited = { kind: 'InsightVizNode', source: { ...funnel.source, series: [{ kind: 'EventsNode', event: 'signed_up' }, { kind: 'EventsNode', event: '$pageview' }] } }
  const before = after.queries[0]!.cache_key
  await call('PATCH', `/insights/${conversion.id}/`, { query: edited })
  const rebuilt = await until('the edited query served live', status, (one) => one.building === null && one.queries.length === 1 && one.queries[0]!.cache_key !== before)
  t.equal(rebuilt.wanted, 1, 'the query before the edit is let go')
  const read = await until('the edited insight answered live', () => call<Insight>('GET', `/insights/${conversion.id}/`), (one) => one.is_cached && one.query_status === null)
  const engine = await call<{ results: unknown }>('POST', '/query/', { query: edited.source, refresh: 'force_blocking' })
  t.same(read.result, engine.results, 'the edited insight\'s live answer is the engine\'s')
})
