import t from 'tap'
import { expectParseError, expectRefusal } from './support/failures.js'

const steps = [{ kind: 'EventsNode', event: 'a' }, { kind: 'EventsNode', event: 'b' }, { kind: 'EventsNode', event: 'c' }]
const funnel = (funnelsFilter: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ kind: 'FunnelsQuery', series: steps, funnelsFilter, ...extra })
const retention = (retentionFilter: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ kind: 'RetentionQuery', retentionFilter, ...extra })
const trends = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'a' }] }

t.test('funnel nodes that do not match the schema are parse errors naming the field', async (t) => {
  expectParseError(t, { kind: 'FunnelsQuery', series: [steps[0]] }, /series\n {2}A funnel needs at least two steps/)
  expectParseError(t, funnel({ funnelOrderType: 'random' }), /funnelsFilter\.funnelOrderType/)
  expectParseError(t, funnel({ funnelWindowIntervalUnit: 'year' }), /funnelsFilter\.funnelWindowIntervalUnit/)
  expectParseError(t, funnel({ exclusions: [{ kind: 'EventsNode', event: 'x', funnelFromStep: -1, funnelToStep: 1 }] }), /funnelsFilter\.exclusions\.0\.funnelFromStep/)
})

t.test('funnels PostHog would refuse are refused with its messages', async (t) => {
  const exclusion = (from: number, to: number, event = 'x') => [{ kind: 'EventsNode', event, funnelFromStep: from, funnelToStep: to }]
  await expectRefusal(t, funnel({ exclusions: exclusion(1, 1) }), /End of range should be greater than start/, 'funnelsFilter.exclusions')
  await expectRefusal(t, funnel({ exclusions: exclusion(2, 3) }), /Start of range is greater than number of steps/)
  await expectRefusal(t, funnel({ exclusions: exclusion(0, 3) }), /End of range is greater than number of steps/)
  await expectRefusal(t, funnel({ exclusions: exclusion(0, 1, 'b') }), /Exclusion steps cannot contain an event that's part of funnel steps/)
  await expectRefusal(t, funnel({ funnelOrderType: 'unordered', exclusions: exclusion(0, 1) }), /Partial Exclusions not allowed in unordered funnels/)
  await expectRefusal(t, funnel({ funnelFromStep: 2 }), /funnelFromStep is out of bounds. It must be between 0 and 1/)
  await expectRefusal(t, funnel({ funnelToStep: 3 }), /funnelToStep is out of bounds. It must be between 1 and 2/)
  await expectRefusal(t, funnel({ funnelFromStep: 1, funnelToStep: 1 }), /funnelToStep should be greater than funnelFromStep/)
  await expectRefusal(t, funnel({ funnelOrderType: 'unordered', breakdownAttributionType: 'step', breakdownAttributionValue: 1 }, { breakdownFilter: { breakdown: '$browser' } }), /Only the first step/)
  await expectRefusal(t, funnel({ funnelAggregateByHogQL: 'properties.$session_id' }), /does not run HogQL/, 'funnelsFilter.funnelAggregateByHogQL')
  await expectRefusal(t, funnel({}, { series: [steps[0], { kind: 'ActionsNode', id: 3 }] }), /no actions/)
  await expectRefusal(t, funnel({}, { series: [steps[0], { ...steps[1], optionalInFunnel: true }] }), /Optional funnel steps/)
})

t.test('retention nodes: schema errors and refusals', async (t) => {
  expectParseError(t, { kind: 'RetentionQuery' }, /retentionFilter\n/)
  expectParseError(t, retention({ period: 'Year' }), /retentionFilter\.period/)
  expectParseError(t, retention({ totalIntervals: 0 }), /retentionFilter\.totalIntervals/)
  await expectRefusal(t, retention({ targetEntity: { id: 4, type: 'actions' } }), /no actions/, 'retentionFilter.targetEntity')
  await expectRefusal(t, retention({ retentionType: 'retention_first_ever_occurrence' }), /first_ever_occurrence/)
  await expectRefusal(t, retention({}, { breakdownFilter: { breakdowns: [{ property: 'a' }, { property: 'b' }] } }), /one property at a time/)
  await expectRefusal(t, retention({}, { breakdownFilter: { breakdown: 'x', breakdown_type: 'cohort' } }), /Cohort breakdowns/)
})

t.test('events query nodes: schema errors and refusals', async (t) => {
  expectParseError(t, { kind: 'EventsQuery' }, /select\n/)
  expectParseError(t, { kind: 'EventsQuery', select: ['*'], limit: 60_000 }, /limit/)
  expectParseError(t, { kind: 'EventsQuery', select: ['*'], offset: -1 }, /offset/)
  await expectRefusal(t, { kind: 'EventsQuery', select: ['*'], where: ['event =='] }, /cannot use "event =="/, 'where.0')
  await expectRefusal(t, { kind: 'EventsQuery', select: ['arrayJoin(properties)'] }, /arrayJoin\(\) is not supported/, 'select.0')
  await expectRefusal(t, { kind: 'EventsQuery', select: ['*'], actionId: 3 }, /no actions/)
  await expectRefusal(t, { kind: 'EventsQuery', select: ['*'], after: 'last tuesday' }, /Invalid date/, 'after')
})

t.test('actors query nodes: schema errors and refusals', async (t) => {
  expectParseError(t, { kind: 'ActorsQuery', source: { kind: 'PersonsNode' } }, /source/)
  expectParseError(t, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: funnel({}), funnelStep: 1.5 } }, /funnelStep/)
  await expectRefusal(t, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: funnel({}) } }, /names its step with funnelStep/)
  await expectRefusal(t, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: funnel({}), funnelStep: 0 } }, /1-indexed/)
  await expectRefusal(t, { kind: 'ActorsQuery', source: { kind: 'FunnelsActorsQuery', source: funnel({}), funnelStep: 4 } }, /names none of them/)
  await expectRefusal(t, { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: { kind: 'LifecycleQuery', series: [steps[0]] }, day: '2024-01-01', status: 'gone' } }, /Invalid lifecycle status/, 'status')
  await expectRefusal(t, { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: retention({}) } }, /names its cohort with interval/, 'interval')
  await expectRefusal(t, { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: trends, series: 3 } }, /no series 3/, 'series')
  await expectRefusal(t, { kind: 'ActorsQuery', source: { kind: 'InsightActorsQuery', source: trends, day: 'yesterday' } }, /Invalid day/, 'day')
  await expectRefusal(t, { kind: 'InsightActorsQuery', source: { kind: 'StickinessQuery', series: [steps[0]] }, day: 'x' }, /number of intervals/)
})
