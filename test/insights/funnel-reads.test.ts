import t from 'tap'
import { queryWorld, type SentEvent } from './support/query-world.js'

/**
 * A funnel reads its events' properties from the store only when something in it needs them:
 * these run through `POST …/query/` against the read models, where a funnel that needs none
 * reads only names, times and persons.
 */
const send = (event: string, distinctId: string, at: string, properties: Record<string, unknown> = {}): SentEvent =>
  ({ event, distinctId, at: `${at}Z`, properties })

const EVENTS = [
  send('$pageview', 'u1', '2024-01-01T10:00:00', { plan: 'pro' }), send('signup', 'u1', '2024-01-01T11:00:00'),
  send('$pageview', 'u2', '2024-01-01T10:00:00', { plan: 'free' }), send('signup', 'u2', '2024-01-01T11:00:00'),
  send('$pageview', 'u3', '2024-01-01T10:00:00', { plan: 'pro' }),
]

const funnel = (extra: Record<string, unknown> = {}, pageview: Record<string, unknown> = {}) => ({
  query: {
    kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview', ...pageview }, { kind: 'EventsNode', event: 'signup' }],
    dateRange: { date_from: '2024-01-01', date_to: '2024-01-02' }, ...extra,
  },
})

const counts = (steps: { count: number }[]) => steps.map((step) => step.count)

t.test('a funnel reads event properties when its steps, filters or breakdown need them, and only names and times otherwise', async (t) => {
  const api = await queryWorld(t)
  await api.send(EVENTS)
  t.same(counts((await api.query(funnel())).body.results), [3, 2], 'no property read')
  t.same(counts((await api.query(funnel({}, { properties: [{ type: 'event', key: 'plan', value: 'pro', operator: 'exact' }] }))).body.results), [2, 1],
    'a step filtered on an event property')
  t.same(counts((await api.query(funnel({ properties: [{ type: 'event', key: 'plan', value: 'free', operator: 'exact' }] }))).body.results), [1, 0],
    'the query filtered on an event property')
  const byPlan = (await api.query(funnel({ breakdownFilter: { breakdown: 'plan', breakdown_type: 'event' } }))).body.results as { breakdown_value: string[]; count: number }[][]
  t.same(byPlan.map((steps) => [steps[0]!.breakdown_value, counts(steps)]), [[['pro'], [2, 1]], [['free'], [1, 1]]], 'broken down by an event property')
})
