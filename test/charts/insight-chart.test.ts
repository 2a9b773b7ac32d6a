import t from 'tap'
import { chartInputOf } from '../../src/charts/insight-chart.js'

t.test('an insight of the insights API reads into a chart input', async (t) => {
  const result = [{ label: '$pageview', data: [1], labels: ['1-Nov-2026'], count: 1 }]
  t.same(chartInputOf({
    name: 'Pageviews',
    derived_name: 'Pageview count',
    query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [], trendsFilter: { display: 'ActionsBar' } } },
    result,
    timezone: 'Europe/Paris',
    resolved_date_range: { date_from: '2026-11-01T00:00:00+01:00', date_to: '2026-11-27T23:59:59+01:00' },
  }), {
    kind: 'TrendsQuery',
    display: 'ActionsBar',
    name: 'Pageviews',
    dateRange: { date_from: '2026-11-01T00:00:00+01:00', date_to: '2026-11-27T23:59:59+01:00' },
    timezone: 'Europe/Paris',
    result,
  })
})

t.test('funnels take their display from funnelVizType; other kinds have none', async (t) => {
  const funnel = chartInputOf({ query: { kind: 'InsightVizNode', source: { kind: 'FunnelsQuery', funnelsFilter: { funnelVizType: 'trends' } } } })
  t.same([funnel.kind, funnel.display], ['FunnelsQuery', 'trends'])
  const retention = chartInputOf({ query: { kind: 'InsightVizNode', source: { kind: 'RetentionQuery', trendsFilter: { display: 'ActionsBar' } } } })
  t.same([retention.kind, retention.display], ['RetentionQuery', null])
  const bare = chartInputOf({ query: { kind: 'LifecycleQuery' } })
  t.same([bare.kind, bare.display], ['LifecycleQuery', null], 'a query that is not an InsightVizNode is its own source')
})

t.test('the derived name stands in for a missing name; missing members read as absent', async (t) => {
  t.same(chartInputOf({ name: null, derived_name: 'Pageview count' }), {
    kind: null, display: null, name: 'Pageview count', dateRange: null, timezone: 'UTC', result: null,
  })
  t.same(chartInputOf({ name: '', query: 'nope', resolved_date_range: { date_from: 1 }, timezone: 7 }), {
    kind: null, display: null, name: '', dateRange: null, timezone: 'UTC', result: null,
  })
})
