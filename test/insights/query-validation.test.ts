import t, { type Test } from 'tap'
import { memorySource } from '../../src/insights/engine/memory-source.js'
import { runQuery } from '../../src/insights/engine/run-query.js'
import { errorBody, QueryParseError, QueryRefused } from '../../src/insights/errors.js'
import { parseQueryNode } from '../../src/insights/schema/query-node.js'
import { at } from './support/events.js'
import type { DomainError } from '../../src/kernel/errors.js'

const steps = [{ kind: 'EventsNode', event: 'a' }, { kind: 'EventsNode', event: 'b' }, { kind: 'EventsNode', event: 'c' }]
const funnel = (funnelsFilter: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ kind: 'FunnelsQuery', series: steps, funnelsFilter, ...extra })
const retention = (retentionFilter: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ kind: 'RetentionQuery', retentionFilter, ...extra })
const trends = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'a' }] }

const parseFailure = (t: Test, input: unknown, mentions: RegExp) => {
  try {
    parseQueryNode(input)
    t.fail('the node was accepted')
  } catch (error) {
    t.ok(error instanceof QueryParseError)
    t.match(errorBody(error as DomainError), { type: 'invalid_request', code: 'parse_error', attr: null, detail: mentions })
  }
}

const refused = async (t: Test, node: unknown, mentions: RegExp, attr?: string) => {
  try {
    await runQuery(parseQueryNode(node), at('2024-02-01T00:00:00Z'), memorySource([]))
    t.fail('the query ran')
  } catch (error) {
    t.ok(error instanceof QueryRefused, String(error))
    const body = errorBody(error as DomainError)
    t.equal((error as DomainError).status, 400)
    t.same(Object.keys(body), ['type', 'code', 'detail', 'attr'])
    t.equal(body.type, 'validation_error')
    t.match(body.detail, mentions)
    if (attr !== undefined) t.equal(body.attr, attr)
  }
}

t.test('funnel nodes that do not match the schema are parse errors naming the field', async (t) => {
  parseFailure(t, { kind: 'FunnelsQuery', series: [steps[0]] }, /series\n {2}A funnel needs at least two steps/)
  parseFailure(t, funnel({ funnelOrderType: 'random' }), /funnelsFilter\.funnelOrderType/)
  parseFailure(t, funnel({ funnelWindowIntervalUnit: 'year' }), /funnelsFilter\.funnelWindowIntervalUnit/)
  parseFailure(t, funnel({ exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: -1, funnelToStep: 1 }] }), /funnelsFilter\.exclusions\.0\.funnelFromStep/)
})

t.test('funnels PostHog would refuse are refused with its messages', async (t) => {
  const exclusion = (from: number, to: number, event = 'x') => [{ kind: 'EventsNode', event, funnelFromStep: from, funnelToStep: to }]
  await refused(t, funnel({ exclusions: exclusion(1, 1) }), /End of range should be greater than start/, 'funnelsFilter.exclusions')
  await refused(t, funnel({ exclusions: exclusion(2, 3) }), /Start of range is greater than number of steps/)
  await refused(t, funnel({ exclusions: exclusion(0, 3) }), /End of range is greater than number of steps/)
  await refused(t, funnel({ exclusions: exclusion(0, 1, 'b') }), /Exclusion steps cannot contain an event that's part of funnel steps/)
  await refused(t, funnel({ funnelOrderType: 'unordered', exclusions: exclusion(0, 1) }), /Partial Exclusions not allowed in unordered funnels/)
  await refused(t, funnel({ funnelFromStep: 2 }), /funnelFromStep is out of bounds. It must be between 0 and 1/)
  await refused(t, funnel({ funnelToStep: 3 }), /funnelToStep is out of bounds. It must be between 1 and 2/)
  await refused(t, funnel({ funnelFromStep: 1, funnelToStep: 1 }), /funnelToStep should be greater than funnelFromStep/)
  await refused(t, funnel({ funnelOrderType: 'unordered', breakdownAttributionType: 'step', breakdownAttributionValue: 1 }, { breakdownFilter: { breakdown: '$browser' } }), /Only the first step/)
  await refused(t, funnel({ funnelAggregateByHogQL: 'properties.$session_id' }), /does not run HogQL/, 'funnelsFilter.funnelAggregateByHogQL')
  await refused(t, funnel({}, { series: [steps[0], { kind: 'ActionsNode', id: 3 }] }), /no actions/)
  await refused(t, funnel({}, { series: [steps[0], { ...steps[1], optionalInFunnel: true }] }), /Optional funnel steps/)
})

t.test('retention nodes: schema errors and refusals', async (t) => {
  parseFailure(t, { kind: 'RetentionQuery' }, /retentionFilter\n/)
  parseFailure(t, retention({ period: 'Year' }), /retentionFilter\.period/)
  parseFailure(t, retention({ totalIntervals: 0 }), /retentionFilter\.totalIntervals/)
  await refused(t, retention({ targetEntity: { id: 4, type: 'actions' } }), /no actions/, 'retentionFilter.targetEntity')
  await refused(t, retention({ retentionType: 'retention_first_ever_occurrence' }), /first_ever_occurrence/)
  await refused(t, retention({}, { breakdownFilter: { breakdowns: [{ property: 'a' }, { property: 'b' }] } }), /one property at a time/)
  await refused(t, retention({}, { breakdownFilter: { breakdown: 'x', breakdown_type: 'cohort' } }), /Cohort breakdowns/)
})

t.test('events query nodes: schema errors and refusals', async (t) => {
  parseFailure(t, { kind: 'EventsQuery' }, /select\n/)
  parseFailure(t, { kind: 'EventsQuery', select: ['*'], limit: 60_000 }, /limit/)
  parseFailure(t, { kind: 'EventsQuery', select: ['*'], offset: -1 }, /offset/)
  await refused(t, { kind: 'EventsQuery', select: ['*'], where: ['event =='] }, /cannot use "event =="/, 'where.0')
  await refused(t, { kind: 'EventsQuery', select: ['arrayJoin(properties)'] }, /arrayJoin\(\) is not supported/, 'select.0')
  await refused(t, { kind: 'EventsQuery', select: ['*'], actionId: 3 }, /no actions/)
  await refused(t, { kind: 'EventsQuery', select: ['*'], after: 'last tuesday' }, /Invalid date/, 'after')
})

t.test('actors query nodes: schema errors and refusals', async (t) => {
  parseFailure(t, { kind: 'ActorsQuery', source: { kind: 'PersonsNode' } }, /source/)
  parseFailure(t, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: funnel({}), funnelStep: 1.5 } }, /funnelStep/)
  await refused(t, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: funnel({}) } }, /names its step with funnelStep/)
  await refused(t, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: funnel({}), funnelStep: 0 } }, /1-indexed/)
  await refused(t, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: funnel({}), funnelStep: 4 } }, /names none of them/)
  await refused(t, { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: { kind: 'LifecycleQuery', series: [steps[0]] }, day: '2024-01-01', status: 'gone' } }, /Invalid lifecycle status/, 'status')
  await refused(t, { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: retention({}) } }, /names its cohort with interval/, 'interval')
  await refused(t, { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: trends, series: 3 } }, /no series 3/, 'series')
  await refused(t, { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: trends, day: 'yesterday' } }, /Invalid day/, 'day')
  await refused(t, { kind: 'InsightActorsQuery', source: { kind: 'StickinessQuery', series: [steps[0]] }, day: 'x' }, /number of intervals/)
})
