import t from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import type { FunnelStep } from '../../src/insights/funnels/funnel-results.js'
import { runFunnels } from '../../src/insights/funnels/run-funnels.js'
import type { FunnelTimeToConvert, FunnelTrendsSeries } from '../../src/insights/funnels/funnel-views.js'
import type { FunnelsQuery } from '../../src/insights/schema/insight-queries.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at, ev } from './support/events.js'
import { TV4_EVENTS as TV4 } from './support/vectors.js'
import type { QueryEvent, QueryGroup } from '../../src/insights/engine/data.js'

const NOW = at('2024-02-15T00:00:00Z')
const january = { date_from: '2024-01-01', date_to: '2024-01-31' }
const signupPurchase = [{ kind: 'EventsNode', event: 'signup' }, { kind: 'EventsNode', event: 'purchase' }]
const funnel = async (query: Record<string, unknown>, events: QueryEvent[], groups = new Map<number, Map<string, QueryGroup>>()) =>
  (await runFunnels(parseQueryNode({ kind: 'FunnelsQuery', series: signupPurchase, dateRange: january, ...query }) as FunnelsQuery, NOW, memorySource(events, groups))).results
const counts = (steps: unknown) => (steps as FunnelStep[]).map((step) => step.count)

t.test('the conversion window is measured from the first step, bound included, in any unit', async (t) => {
  const events = [ev('signup', '2024-01-02T00:00:00', 'p'), ev('purchase', '2024-01-02T02:00:00', 'p')]
  const within = (funnelWindowInterval: number, funnelWindowIntervalUnit: string) => funnel({ funnelsFilter: { funnelWindowInterval, funnelWindowIntervalUnit } }, events).then(counts)
  t.same(await within(1, 'hour'), [1, 0])
  t.same(await within(2, 'hour'), [1, 1])
  t.same(await within(119, 'minute'), [1, 0])
  t.same(await within(7200, 'second'), [1, 1])
  t.same(await within(1, 'week'), [1, 1])
})

t.test('every step must lie in the date range', async (t) => {
  const events = [ev('signup', '2024-01-31T23:00:00', 'p'), ev('purchase', '2024-02-01T01:00:00', 'p')]
  t.same(counts(await funnel({}, events)), [1, 0])
})

t.test('an attempt with an exclusion event between its steps is discarded', async (t) => {
  const events = [
    ev('signup', '2024-01-01T10:00:00', 'e1'), ev('cancel', '2024-01-01T11:00:00', 'e1'), ev('purchase', '2024-01-01T12:00:00', 'e1'),
    ev('signup', '2024-01-02T10:00:00', 'e2'), ev('purchase', '2024-01-02T11:00:00', 'e2'), ev('cancel', '2024-01-02T12:00:00', 'e2'),
    ev('signup', '2024-01-03T10:00:00', 'e3'), ev('cancel', '2024-01-03T11:00:00', 'e3'), ev('signup', '2024-01-20T10:00:00', 'e3'), ev('purchase', '2024-01-20T11:00:00', 'e3'),
    ev('signup', '2024-01-04T10:00:00', 'e4'), ev('cancel', '2024-01-04T11:00:00', 'e4'),
  ]
  const exclusions = [{ kind: 'EventsNode', event: 'cancel', funnelFromStep: 0, funnelToStep: 1 }]
  t.same(counts(await funnel({ funnelsFilter: { exclusions } }, events)), [2, 2], 'e1 and e4 are excluded; e3 converts with its later attempt')
})

t.test('a step that repeats the one before needs a later event', async (t) => {
  const events = [
    ev('$pageview', '2024-01-02T00:00:00', 'q1'),
    ev('$pageview', '2024-01-02T00:00:00', 'q2'), ev('$pageview', '2024-01-02T00:05:00', 'q2'),
    ev('$pageview', '2024-01-02T00:00:00', 'q3'), ev('$pageview', '2024-01-02T00:00:00', 'q3'),
  ]
  const series = [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: '$pageview' }]
  t.same(counts(await funnel({ series }, events)), [3, 1])
})

const touches = [
  ev('signup', '2024-01-01T10:00:00', 'A', { $browser: 'Chrome' }), ev('purchase', '2024-01-01T11:00:00', 'A', { $browser: 'Firefox' }),
  ev('signup', '2024-01-02T10:00:00', 'B'), ev('signup', '2024-01-03T10:00:00', 'B', { $browser: 'Safari' }), ev('purchase', '2024-01-04T10:00:00', 'B', { $browser: 'Safari' }),
]
const byBrowser = async (funnelsFilter: Record<string, unknown>, breakdownFilter: Record<string, unknown> = { breakdown: '$browser' }) =>
  ((await funnel({ breakdownFilter, funnelsFilter }, touches)) as FunnelStep[][]).map((steps) => [steps[0]!.breakdown_value, counts(steps)])

t.test('first and last touch attribute each actor to one value', async (t) => {
  t.same(await byBrowser({}), [[['Chrome'], [1, 1]], [['Safari'], [1, 1]]], 'first touch is the default; empty values are passed over')
  t.same(await byBrowser({ breakdownAttributionType: 'last_touch' }), [[['Firefox'], [1, 1]], [['Safari'], [1, 1]]])
})

t.test('all_events runs the funnel per actor and value, over the events carrying it', async (t) => {
  t.same(await byBrowser({ breakdownAttributionType: 'all_events' }), [[['Safari'], [1, 1]], [[''], [1, 0]], [['Chrome'], [1, 0]]])
})

t.test('step attribution takes the value from the events of one step', async (t) => {
  t.same(await byBrowser({ breakdownAttributionType: 'step', breakdownAttributionValue: 1 }), [[['Firefox'], [1, 1]], [['Safari'], [1, 1]]])
  t.same(await byBrowser({ breakdownAttributionType: 'step', breakdownAttributionValue: 0 }), [[[''], [1, 1]], [['Chrome'], [1, 1]], [['Safari'], [1, 1]]])
})

t.test('values beyond the breakdown limit are merged into Other', async (t) => {
  t.same(await byBrowser({}, { breakdown: '$browser', breakdown_limit: 1 }), [[['Chrome'], [1, 1]], [['Other'], [1, 1]]])
})

t.test('breakdown steps carry breakdown and breakdown_value; a group breakdown is one string', async (t) => {
  const groups = new Map([[0, new Map([['acme', { properties: { industry: 'tech' }, createdAt: 0 }]])]])
  const events = [ev('signup', '2024-01-01T10:00:00', 'A', { $group_0: 'acme' }), ev('purchase', '2024-01-01T11:00:00', 'A', { $group_0: 'acme' })]
  const [steps] = (await funnel({ breakdownFilter: { breakdown_type: 'group', breakdown: 'industry', breakdown_group_type_index: 0 } }, events, groups)) as FunnelStep[][]
  t.match(steps![1], { breakdown: 'tech', breakdown_value: 'tech', count: 1, average_conversion_time: 3600, median_conversion_time: 3600 })
  t.same(await funnel({ breakdownFilter: { breakdown: '$browser' } }, []), [], 'no subjects with a breakdown: no result lists')
})

t.test('steps show the custom name and, for all events, a null name', async (t) => {
  const series = [{ kind: 'EventsNode', event: 'signup', custom_name: 'Signed up' }, { kind: 'EventsNode', event: null }]
  const steps = (await funnel({ series }, touches)) as FunnelStep[]
  t.same(steps.map((s) => [s.action_id, s.name, s.custom_name]), [['signup', 'signup', 'Signed up'], [null, null, null]])
  t.same(counts(steps), [2, 2])
  t.equal(steps[0]!.converted_people_url, null)
})

t.test('a funnel aggregated by group follows the group across persons', async (t) => {
  const events = [
    ev('signup', '2024-01-01T10:00:00', 'u1', { $group_0: 'acme' }), ev('purchase', '2024-01-01T11:00:00', 'u2', { $group_0: 'acme' }),
    ev('signup', '2024-01-01T10:00:00', 'u3'),
  ]
  t.same(counts(await funnel({ aggregation_group_type_index: 0 }, events)), [1, 1])
})

t.test('time to convert bins the conversion times of TV4', async (t) => {
  const result = (await funnel({ funnelsFilter: { funnelVizType: 'time_to_convert' } }, TV4)) as FunnelTimeToConvert
  t.same(result, { average_conversion_time: 59000, bins: [[600, 2], [86700, 0], [172800, 1]] })
  const custom = (await funnel({ funnelsFilter: { funnelVizType: 'time_to_convert', binCount: 1 } }, TV4)) as FunnelTimeToConvert
  t.same(custom.bins, [[600, 2], [172800, 1]])
  const none = (await funnel({ funnelsFilter: { funnelVizType: 'time_to_convert' } }, [])) as FunnelTimeToConvert
  t.same(none, { average_conversion_time: null, bins: [[0, 0], [1, 0]] })
})

t.test('funnel trends give the conversion rate per entrance day', async (t) => {
  const [series] = (await funnel({ funnelsFilter: { funnelVizType: 'trends' } }, TV4)) as FunnelTrendsSeries[]
  t.equal(series!.count, 31)
  t.same(series!.data.slice(0, 10), [50, 0, 0, 100, 0, 0, 0, 0, 0, 100])
  t.equal(series!.days[0], '2024-01-01')
  t.equal(series!.labels[0], '1-Jan-2024')
})
