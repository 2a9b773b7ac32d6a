import t from 'tap'
import { exited } from '../support/cli.js'
import { liveDataDir } from '../audit/support/live.js'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { join } from 'node:path'
import { ReadModels } from '../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { allProjectors } from '../../src/modules.js'
import { ownFilesOf } from '../../src/readstore/sqlite-shards.js'
import { replayedLive } from '../../src/insights/live/replayed.js'
import { liveQueryOf } from '../../src/insights/live/live-kinds.js'
import type { LiveQuery } from '../../src/insights/live/live-query.js'

const DAY = 86_400_000

t.test('rebuild digests the live insights of a replay, and verify compares each with the query engine', async (t) => {
  const { dir, init, server, api, cli } = await liveDataDir(t)
  const day = (back: number) => new Date(Date.now() - back * DAY).toISOString()
  const capture = async (batch: object[]) => {
    const response = await fetch(`${server.address}/batch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ api_key: init.project_api_key, batch }) })
    t.equal(response.status, 200)
  }
  await capture([
    { event: '$pageview', distinct_id: 'anon-1', timestamp: day(3), properties: { $browser: 'Firefox' } },
    { event: '$pageview', distinct_id: 'ann', timestamp: day(2), properties: { $browser: 'Chrome' } },
    { event: 'signed_up', distinct_id: 'ann', timestamp: day(2) },
    { event: '$identify', distinct_id: 'ann', timestamp: day(1), properties: { $anon_distinct_id: 'anon-1' } },
    { event: '$pageview', distinct_id: 'bob', timestamp: day(40), properties: { $browser: 'Safari' } },
  ])
  const trends = { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], breakdownFilter: { breakdown: '$browser' }, dateRange: { date_from: '-7d' } } }
  const funnel = { kind: 'InsightVizNode', source: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }], dateRange: { date_from: '-30d' } } }
  t.equal((await api('POST', '/insights/', { name: 'Visitors', query: trends, saved: true })).status, 201)
  t.equal((await api('POST', '/insights/', { name: 'Sign-ups', query: funnel, saved: true })).status, 201)
  await new Promise((resolve) => setTimeout(resolve, 500))
  server.child.kill('SIGTERM')
  await exited(server.child)

  const first = await cli(['rebuild', '--json'])
  t.equal(first.code, 0, first.stderr)
  const again = await cli(['rebuild', '--json'])
  const [a, b] = [JSON.parse(first.stdout), JSON.parse(again.stdout)]
  t.equal(a.liveInsights.queries, 2, 'both saved insights are live queries of the replay')
  t.equal(a.liveInsights.events, 5, 'given every captured event')
  t.match(a.liveInsights.sha256, /^[0-9a-f]{64}$/)
  t.same(b.liveInsights, a.liveInsights, 'two rebuilds of one log give the same answers, for the same moment')
  const text = await cli(['rebuild'])
  t.match(text.stdout, new RegExp(`live insights\\tat ${a.liveInsights.at.replace(/[.]/g, '\\.')}\\tqueries=2 events=5\\t${a.liveInsights.sha256}`))

  const verified = await cli(['verify', '--json'])
  t.equal(verified.code, 0, verified.stdout + verified.stderr)
  const report = JSON.parse(verified.stdout)
  t.equal(report.liveInsights.queries, 2)
  t.equal(report.liveInsights.events, 5)
  t.equal(report.liveInsights.difference, null, 'each live answer equals the engine\'s over the replay')

  // The comparison itself: a live funnel that misses its sign-ups is told apart from the engine.
  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  const store = new SqliteReadStore({ path: join(dir, 'readmodels.sqlite'), ownFiles: ownFilesOf(allProjectors) })
  t.teardown(async () => { await log.close(); await store.close() })
  const models = new ReadModels({ store, registry: new ProjectionRegistry(store), projectors: allProjectors })
  const head = (await log.headPosition())!
  const honest = await replayedLive(log, models, head, { compare: true, now: Date.now() })
  t.equal(honest.difference, null)
  t.equal(honest.events, 5)
  const missing: typeof liveQueryOf = (node, environment, now) => {
    const live = liveQueryOf(node, environment, now)
    if (live === null || node.kind !== 'FunnelsQuery') return live
    const blind: LiveQuery<unknown> = {
      add: (event) => { if (event.event !== 'signed_up') live.add(event) },
      merge: (from, into) => live.merge(from, into), answer: (at) => live.answer(at), size: () => live.size(),
    }
    return blind
  }
  const off = await replayedLive(log, models, head, { compare: true, now: Date.now(), liveOf: missing })
  t.equal(off.difference?.kind, 'FunnelsQuery', 'the funnel that missed its sign-ups differs from the engine')
  t.not(off.sha256, honest.sha256, 'and its answers digest differently')
})
