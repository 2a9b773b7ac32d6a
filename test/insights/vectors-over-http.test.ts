import t from 'tap'
import { queryWorld, type SentEvent } from './support/query-world.js'

/** PostHog's documented examples, sent through posthog-node as a historical import and asked through `POST …/query/`. */
const send = (event: string, distinctId: string, at: string, properties: Record<string, unknown> = {}): SentEvent =>
  ({ event, distinctId, at: at.endsWith('Z') ? at : `${at}Z`, properties })

t.test('lifecycle: new, returning, resurrecting and dormant persons by day', async (t) => {
  const api = await queryWorld(t)
  await api.send([
    send('other', 'p2', '2023-12-20T10:00:00'), send('$pageview', 'p2', '2024-01-01T10:00:00'), send('$pageview', 'p2', '2024-01-02T10:00:00'),
    send('other', 'p3', '2024-01-01T08:00:00'), send('$pageview', 'p3', '2024-01-04T10:00:00'),
    send('$pageview', 'p1', '2024-01-02T10:00:00'), send('$pageview', 'p1', '2024-01-03T10:00:00'), send('$pageview', 'p1', '2024-01-05T10:00:00'),
  ])
  const answer = await api.query({ query: {
    kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day',
    dateRange: { date_from: '2024-01-02', date_to: '2024-01-05' },
  } })
  t.equal(answer.status, 200)
  const byStatus = Object.fromEntries(answer.body.results.map((series: { status: string; data: number[]; count: number; label: string }) => [series.status, series]))
  t.match(byStatus, {
    new: { data: [1, 0, 0, 0], count: 1, label: '$pageview - new' },
    returning: { data: [1, 1, 0, 0], count: 2 },
    resurrecting: { data: [0, 0, 1, 1], count: 2 },
    dormant: { data: [0, -1, -1, -1], count: -3 },
  })
})

t.test('stickiness: persons by the number of days they were active, and cumulatively', async (t) => {
  const api = await queryWorld(t)
  await api.send([
    send('$pageview', 'u1', '2024-01-01T10:00:00'), send('$pageview', 'u1', '2024-01-02T10:00:00'), send('$pageview', 'u1', '2024-01-03T10:00:00'),
    send('$pageview', 'u2', '2024-01-01T10:00:00'),
    send('$pageview', 'u3', '2024-01-02T10:00:00'), send('$pageview', 'u3', '2024-01-05T10:00:00'),
    send('$pageview', 'u4', '2024-01-04T09:00:00'), send('$pageview', 'u4', '2024-01-04T10:00:00'), send('$pageview', 'u4', '2024-01-04T11:00:00'),
  ])
  const query = { kind: 'StickinessQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: { date_from: '2024-01-01', date_to: '2024-01-05' } }
  const plain = await api.query({ query })
  t.match(plain.body.results, [{ days: [1, 2, 3, 4, 5], data: [2, 1, 1, 0, 0], count: 4, labels: ['1 day', '2 days', '3 days', '4 days', '5 days'] }])
  const cumulative = await api.query({ query: { ...query, stickinessFilter: { computedAs: 'cumulative' } } })
  t.match(cumulative.body.results, [{ data: [4, 2, 1, 0, 0], count: 4, labels: ['1 day or more', '2 days or more', '3 days or more', '4 days or more', '5 days or more'] }])
})

t.test('a formula adds two series bucket by bucket', async (t) => {
  const api = await queryWorld(t)
  await api.send([
    send('$pageview', 'u1', '2024-01-01T09:00:00'), send('$pageview', 'u1', '2024-01-01T10:00:00'), send('$pageview', 'u2', '2024-01-01T11:00:00'),
    send('$pageview', 'u2', '2024-01-03T11:00:00'), send('signup', 'u1', '2024-01-01T12:00:00'), send('signup', 'u3', '2024-01-02T12:00:00'),
  ])
  const answer = await api.query({ query: {
    kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup' }], interval: 'day',
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' }, trendsFilter: { formulaNodes: [{ formula: 'A+B' }] },
  } })
  t.match(answer.body.results, [{ label: 'Formula (A+B)', action: null, data: [4, 1, 1], count: 6 }])
  t.equal(answer.body.results.length, 1)
})

t.test('property operators count the events whose property matches', async (t) => {
  const api = await queryWorld(t)
  const plans: (string | number | undefined)[] = ['pro', 'Pro', 'free', undefined, 5]
  await api.send(plans.map((plan, i) => send('$pageview', `u${i}`, `2024-01-01T1${i}:00:00`, plan === undefined ? {} : { plan })))
  const count = async (properties: unknown): Promise<number> => {
    const answer = await api.query({ query: {
      kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], properties,
      dateRange: { date_from: '2024-01-01', date_to: '2024-01-01' }, interval: 'day',
    } })
    t.equal(answer.status, 200)
    return answer.body.results[0].count
  }
  const filter = (operator: string, value?: unknown) => [{ type: 'event', key: 'plan', operator, ...(value === undefined ? {} : { value }) }]
  t.equal(await count(filter('exact', 'pro')), 1)
  t.equal(await count(filter('exact', ['pro', 'free'])), 2)
  t.equal(await count(filter('is_not', 'pro')), 4, 'absent included')
  t.equal(await count(filter('icontains', 'PRO')), 2)
  t.equal(await count(filter('regex', '^p')), 1)
  t.equal(await count(filter('is_set')), 4)
  t.equal(await count(filter('is_not_set')), 1)
  t.equal(await count(filter('exact', '5')), 1, 'a number matches its text')
  const either = { type: 'OR', values: [{ type: 'OR', values: filter('exact', 'pro') }, { type: 'OR', values: filter('exact', 'free') }] }
  t.equal(await count(either), 2)
  t.equal(await count({ ...either, type: 'AND' }), 0)
})

t.test('without a date range a daily query covers the last seven days and today', async (t) => {
  const api = await queryWorld(t)
  const before = new Date().toISOString().slice(0, 10)
  const answer = await api.query({ query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day' } })
  const after = new Date().toISOString().slice(0, 10)
  const days: string[] = answer.body.results[0].days
  t.equal(days.length, 8)
  t.ok([before, after].includes(days.at(-1)!), 'the last day is today')
  const hourly = await api.query({ query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'hour', dateRange: { date_from: '-24h' } } })
  t.equal(hourly.body.results[0].days.length, 25)
})

t.test('funnels: ordered, strict and unordered conversion of signup then purchase', async (t) => {
  const api = await queryWorld(t)
  await api.send([
    send('signup', 'p1', '2024-01-01T10:00:00'), send('$pageview', 'p1', '2024-01-02T10:00:00'), send('purchase', 'p1', '2024-01-03T10:00:00'),
    send('signup', 'p2', '2024-01-01T09:00:00'), send('purchase', 'p2', '2024-01-20T09:00:00'),
    send('purchase', 'p3', '2024-01-02T00:00:00'), send('signup', 'p3', '2024-01-05T00:00:00'),
    send('signup', 'p4', '2024-01-04T00:00:00'), send('purchase', 'p4', '2024-01-04T01:00:00'),
    send('signup', 'p5', '2024-01-10T00:00:00'), send('purchase', 'p5', '2024-01-10T00:10:00'),
  ])
  const funnel = (funnelOrderType: string) => api.query({ query: {
    kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }],
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-31' },
    funnelsFilter: { funnelOrderType, funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day' },
  } })
  const ordered = await funnel('ordered')
  t.equal(ordered.status, 200)
  t.match(ordered.body.results, [
    { action_id: 'signup', name: 'signup', order: 0, count: 5, average_conversion_time: null, median_conversion_time: null },
    { action_id: 'purchase', count: 3, average_conversion_time: 59000, median_conversion_time: 3600 },
  ])
  t.match((await funnel('strict')).body.results, [{ count: 5 }, { count: 2, average_conversion_time: 2100, median_conversion_time: 2100 }])
  t.match((await funnel('unordered')).body.results, [
    { name: 'Completed 1 step', action_id: null, count: 5 }, { name: 'Completed 2 steps', count: 4, average_conversion_time: 109050, median_conversion_time: 88200 },
  ])
})

t.test('retention: recurring and first-time cohorts by day', async (t) => {
  const api = await queryWorld(t)
  await api.send([
    send('$pageview', 'u1', '2024-01-01T10:00:00'), send('$pageview', 'u1', '2024-01-02T10:00:00'), send('$pageview', 'u1', '2024-01-03T10:00:00'),
    send('$pageview', 'u2', '2024-01-01T10:00:00'), send('$pageview', 'u2', '2024-01-03T10:00:00'),
    send('$pageview', 'u3', '2024-01-02T10:00:00'), send('$pageview', 'u4', '2024-01-03T10:00:00'),
  ])
  const retention = async (retentionType: string) => {
    const answer = await api.query({ query: {
      kind: 'RetentionQuery', dateRange: { date_from: '2024-01-01', date_to: '2024-01-03' },
      retentionFilter: {
        period: 'Day', totalIntervals: 3, retentionType,
        targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' },
      },
    } })
    t.equal(answer.status, 200)
    return answer.body.results.map((cohort: { values: { count: number }[] }) => cohort.values.map((value) => value.count))
  }
  t.same(await retention('retention_recurring'), [[2, 1, 2], [2, 1, 0], [3, 0, 0]])
  t.same(await retention('retention_first_time'), [[2, 1, 2], [1, 0, 0], [1, 0, 0]])
})
