import t from 'tap'
import type { QueryEnvironment, QueryEvent } from '../../src/insights/engine/data.js'
import { liveQueryOf } from '../../src/insights/live/live-kinds.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'

const DAY = 86_400_000
const BUILT = Date.parse('2025-06-15T12:00:00Z')
const environment: QueryEnvironment = { timezone: 'UTC', weekStartDay: 0, testAccountFilters: [], groupTypes: [] }

const event = (at: string, name = '$pageview'): QueryEvent => ({
  uuid: `u-${at}-${name}`, event: name, timestamp: Date.parse(at), distinctId: 'a', personId: 'p', personCreatedAt: 0, properties: {}, personProperties: {},
})

/** What a live form of `query`, built at BUILT, keeps after it is told of each of `events`. */
const keptAfter = (query: object, events: readonly QueryEvent[]): number => {
  const live = liveQueryOf(parseQueryNode(query), environment, BUILT)
  if (live === null) throw new Error(`no live form for ${JSON.stringify(query)}`)
  for (const one of events) live.add(one)
  return live.size()
}

const trends = (dateRange: object) => ({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange })
const funnel = (dateRange: object) => ({ kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }], dateRange })
const retention = (dateRange: object) => ({ kind: 'RetentionQuery', retentionFilter: { period: 'Day', totalIntervals: 7 }, dateRange })
const stickiness = (dateRange: object) => ({ kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange })

const june = { date_from: '2025-06-01', date_to: '2025-06-10' }

t.test('a query over an explicit range keeps nothing of the events outside it', async (t) => {
  for (const query of [trends(june), funnel(june), retention(june), stickiness(june)]) {
    const kind = query.kind
    t.equal(keptAfter(query, [event('2025-07-01T00:00:00Z'), event('2025-05-01T00:00:00Z'), event('2026-11-27T10:00:00Z')]), 0, `${kind}: later and earlier events are not kept`)
    t.ok(keptAfter(query, [event('2025-06-05T00:00:00Z')]) > 0, `${kind}: an event of the range is kept`)
  }
})

t.test('a relative range keeps what a later answer may read: nothing before its start, everything after', async (t) => {
  for (const query of [trends({ date_from: '-7d' }), funnel({ date_from: '-7d' }), retention({ date_from: '-7d' }), stickiness({ date_from: '-7d' })]) {
    const kind = query.kind
    t.equal(keptAfter(query, [event(new Date(BUILT - 30 * DAY).toISOString())]), 0, `${kind}: an import of last month's events is not kept`)
    t.ok(keptAfter(query, [event(new Date(BUILT + 100 * DAY).toISOString())]) > 0, `${kind}: an event after the range's end as built is kept, since the range moves on to it`)
  }
})

t.test('a range from the first event, a first-time measure and a lifecycle query keep every event', async (t) => {
  const old = [event('2020-01-01T00:00:00Z')]
  t.ok(keptAfter(trends({ date_from: 'all' }), old) > 0, 'all time')
  t.ok(keptAfter({ kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'first_time_for_user' }], dateRange: june }, old) > 0, 'a first-time series reads every earlier event')
  t.ok(keptAfter({ kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: june }, old) > 0, 'lifecycle')
})
