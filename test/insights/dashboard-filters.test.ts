import t from 'tap'
import { withDashboardFilters } from '../../src/insights/dashboard-filters.js'

const browser = { key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' }
const os = { key: '$os', value: 'Mac', operator: 'exact', type: 'event' }
const trends = (extra: Record<string, unknown> = {}) => ({
  kind: 'InsightVizNode', source: { kind: 'TrendsQuery', series: [], dateRange: { date_from: '-7d', explicitDate: true }, ...extra },
})

t.test('without dates or properties the query is returned as it is', async (t) => {
  const query = trends()
  t.equal(withDashboardFilters(query, {}), query)
  t.equal(withDashboardFilters(query, { date_from: '', properties: [] }), query)
})

t.test('a date sets both ends of the source\'s range and keeps its other keys', async (t) => {
  const filtered = withDashboardFilters(trends(), { date_from: '-30d' })
  t.same(filtered['source'], { kind: 'TrendsQuery', series: [], dateRange: { date_from: '-30d', date_to: null, explicitDate: true } })
})

t.test('properties are ANDed with a list of the query\'s own, or with its group', async (t) => {
  t.same((withDashboardFilters(trends(), { properties: [browser] })['source'] as Record<string, unknown>)['properties'], [browser])
  t.same((withDashboardFilters(trends({ properties: [os] }), { properties: [browser] })['source'] as Record<string, unknown>)['properties'], {
    type: 'AND', values: [{ type: 'AND', values: [os] }, { type: 'AND', values: [browser] }],
  })
  const group = { type: 'OR', values: [{ type: 'AND', values: [os] }] }
  t.same((withDashboardFilters(trends({ properties: group }), { properties: [browser] })['source'] as Record<string, unknown>)['properties'], {
    type: 'AND', values: [group, { type: 'AND', values: [browser] }],
  })
})

t.test('events and HogQL queries take the filters in their own fields', async (t) => {
  const events = withDashboardFilters({ kind: 'DataTableNode', source: { kind: 'EventsQuery', select: ['*'], properties: [os] } }, { date_from: '-1d', properties: [browser] })
  t.same(events['source'], { kind: 'EventsQuery', select: ['*'], properties: [os, browser], after: '-1d', before: null })
  const hogql = withDashboardFilters({ kind: 'HogQLQuery', query: 'select 1' }, { date_to: '2024-01-01' })
  t.same(hogql, { kind: 'HogQLQuery', query: 'select 1', filters: { dateRange: { date_from: null, date_to: '2024-01-01' } } })
})

t.test('the node given is not changed', async (t) => {
  const query = trends({ properties: [os] })
  const before = JSON.stringify(query)
  withDashboardFilters(query, { date_from: '-1d', properties: [browser] })
  t.equal(JSON.stringify(query), before)
})
