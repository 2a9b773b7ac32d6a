import t from 'tap'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { validationErrorBody } from '../../src/insights/schema/pydantic-text.js'
import { TrendsQuery } from '../../src/insights/schema/insight-queries.js'
import { expectParseError, expectRefusal } from './support/failures.js'

const series = [{ kind: 'EventsNode', event: '$pageview' }]
const trends = (extra: Record<string, unknown>) => ({ kind: 'TrendsQuery', series, ...extra })

t.test('an unknown kind is a parse error naming the kind', async (t) => expectParseError(t, { kind: 'PathsQueryX' }, /Unknown query kind "PathsQueryX"/))
t.test('a node without a kind is a parse error', async (t) => expectParseError(t, {}, /query\.kind/))
t.test('a bad math names the math and where it is', async (t) => expectParseError(t, trends({ series: [{ kind: 'EventsNode', event: 'x', math: 'bogus' }] }), /series\.0\.math\n {2}Invalid math "bogus"/))
t.test('a bad date string names the date', async (t) => expectParseError(t, trends({ dateRange: { date_from: 'yesterday-ish' } }), /dateRange\.date_from\n {2}Invalid date "yesterday-ish"/))
t.test('"all" is not a date_to', async (t) => expectParseError(t, trends({ dateRange: { date_to: 'all' } }), /date_to/))
t.test('a bad operator names the operator', async (t) => expectParseError(t, trends({ properties: [{ type: 'event', key: 'a', operator: 'resembles', value: 'x' }] }), /Invalid property operator "resembles"/))
t.test('an unknown filter type is refused', async (t) => expectParseError(t, trends({ properties: [{ type: 'planet', key: 'a' }] }), /Unknown property filter type/))
t.test('a bad interval is refused', async (t) => expectParseError(t, trends({ interval: 'fortnight' }), /Invalid interval "fortnight"/))
t.test('a bad display is refused', async (t) => expectParseError(t, trends({ trendsFilter: { display: 'Hologram' } }), /Invalid display "Hologram"/))
t.test('a series of another kind is refused', async (t) => expectParseError(t, trends({ series: [{ kind: 'PersonsNode' }] }), /Series kind must be/))
t.test('a lifecycle query needs exactly one series', async (t) => expectParseError(t, { kind: 'LifecycleQuery', series: [] }, /exactly one series/))
t.test('more than three breakdowns are refused', async (t) => expectParseError(t, trends({ breakdownFilter: { breakdowns: [1, 2, 3, 4].map((n) => ({ property: `p${n}` })) } }), /At most 3/))
t.test('a missing required field is named', async (t) => expectParseError(t, { kind: 'HogQLQuery' }, /query\n/))

t.test('cosmetic keys and every kind of node validate', async (t) => {
  t.doesNotThrow(() => parseQueryNode(trends({ trendsFilter: { showLegend: true, aggregationAxisFormat: 'percentage', decimalPlaces: 2, goalLines: [] } })))
  for (const node of [
    { kind: 'FunnelsQuery', series: [...series, { kind: 'EventsNode', event: 'b' }], funnelsFilter: { funnelOrderType: 'strict' } },
    { kind: 'RetentionQuery', retentionFilter: { period: 'Week', totalIntervals: 5 } },
    { kind: 'EventsQuery', select: ['*'], after: '-24h' },
    { kind: 'HogQLQuery', query: 'select 1' },
    { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: trends({}), day: '2024-01-01' } },
    { kind: 'StickinessQuery', series, stickinessFilter: { computedAs: 'cumulative' } },
  ]) t.doesNotThrow(() => parseQueryNode(node), node.kind)
})

t.test('a zod error becomes PostHog\'s 400 body', async (t) => {
  const result = TrendsQuery.safeParse(trends({ interval: 7 }), { reportInput: true })
  t.notOk(result.success)
  const body = validationErrorBody(result.error!)
  t.same(Object.keys(body), ['type', 'code', 'detail', 'attr'])
  t.match(body, { type: 'invalid_request', code: 'parse_error', attr: null, detail: /^JSON parse error - 1 validation error for QueryRequest\ninterval\n/ })
})

t.test('HogQL is refused by the engine with a 400', async (t) => {
  await expectRefusal(t, { kind: 'HogQLQuery', query: 'select 1' }, /HogQL queries are not supported/)
  await expectRefusal(t, trends({ series: [{ kind: 'EventsNode', event: 'x', math: 'hogql', math_hogql: 'count()' }] }), /HogQL math/)
  await expectRefusal(t, trends({ breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.$browser' } }), /HogQL breakdowns/)
})
t.test('actions and data warehouse series are refused clearly', async (t) => {
  await expectRefusal(t, trends({ series: [{ kind: 'ActionsNode', id: 4 }] }), /no actions/)
  await expectRefusal(t, trends({ series: [{ kind: 'DataWarehouseNode', id: 'x', table_name: 't', timestamp_field: 'ts' }] }), /data warehouse/)
})
t.test('a range with too many buckets is refused before any event is read', async (t) => {
  await expectRefusal(t, trends({ interval: 'minute', dateRange: { date_from: '-10y' } }), /too long for the minute interval/)
})
t.test('a formula naming a missing series or not parsing is refused', async (t) => {
  await expectRefusal(t, trends({ trendsFilter: { formula: 'A+C' } }), /series C does not exist/)
  await expectRefusal(t, trends({ trendsFilter: { formula: 'A+' } }), /ends too soon/)
  await expectRefusal(t, trends({ trendsFilter: { formula: 'process.exit()' } }), /Invalid formula/)
})
t.test('unique_group without a group type index is refused', async (t) => {
  await expectRefusal(t, trends({ series: [{ kind: 'EventsNode', event: 'x', math: 'unique_group' }] }), /math_group_type_index/)
})
