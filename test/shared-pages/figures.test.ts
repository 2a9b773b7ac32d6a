import t from 'tap'
import { figuresOf, figuresTable, queryKind, MAX_FIGURE_ROWS } from '../../src/shared-pages/figures.js'

const viz = (kind: string) => ({ kind: 'InsightVizNode', source: { kind } })

t.test('the kind of a query is read through its InsightVizNode', async (t) => {
  t.equal(queryKind(viz('FunnelsQuery')), 'FunnelsQuery')
  t.equal(queryKind({ kind: 'TrendsQuery' }), 'TrendsQuery')
  t.equal(queryKind(null), null)
  t.equal(queryKind({ kind: 'InsightVizNode' }), null)
})

t.test('trends: each series\' total, its aggregated value first', async (t) => {
  const figures = figuresOf({
    query: viz('TrendsQuery'),
    result: [
      { label: '$pageview', breakdown_value: 'Chrome', data: [1, 2, 3], count: 6 },
      { label: '$pageview', data: [4, 5], count: 0, aggregated_value: 12 },
      { label: 'no count', data: [2, 2] },
    ],
  })
  t.same(figures?.rows, [{ label: '$pageview · Chrome', value: 6 }, { label: '$pageview', value: 12 }, { label: 'no count', value: 4 }])
})

t.test('funnels: each step\'s people, with or without a breakdown', async (t) => {
  const steps = [{ name: 'a', custom_name: null, order: 0, count: 5 }, { name: 'b', custom_name: 'Paid', order: 1, count: 2 }]
  t.same(figuresOf({ query: viz('FunnelsQuery'), result: steps })?.rows, [{ label: '1. a', value: 5 }, { label: '2. Paid', value: 2 }])
  const grouped = figuresOf({ query: viz('FunnelsQuery'), result: [steps.map((s) => ({ ...s, breakdown_value: ['x'] })), steps.map((s) => ({ ...s, breakdown_value: ['y'] }))] })
  t.same(grouped?.rows.map((row) => row.label), ['x · 1. a', 'x · 2. Paid', 'y · 1. a', 'y · 2. Paid'])
})

t.test('retention: each cohort\'s size', async (t) => {
  const figures = figuresOf({
    query: viz('RetentionQuery'),
    result: [{ label: 'Day 0', date: '2024-01-01T00:00:00Z', values: [{ count: 3 }, { count: 1 }] }, { label: 'Day 1', date: '2024-01-02T00:00:00Z', values: [] }],
  })
  t.same(figures?.rows, [{ label: '2024-01-01', value: 3 }, { label: '2024-01-02', value: 0 }])
})

t.test('nothing to show without a result or for other kinds', async (t) => {
  t.equal(figuresOf({ query: viz('TrendsQuery'), result: null }), null)
  t.equal(figuresOf({ query: viz('TrendsQuery'), result: [] }), null)
  t.equal(figuresOf({ query: { kind: 'HogQuery' }, result: [1] }), null)
})

t.test('the table escapes its labels, keeps exact values in data-value and counts what it leaves out', async (t) => {
  const rows = Array.from({ length: MAX_FIGURE_ROWS + 3 }, (_, i) => ({ label: i === 0 ? '<b>"x"</b>' : `s${i}`, value: i + 0.125 }))
  const html = figuresTable({ heading: 'Series', valueHeading: 'Total', rows })
  t.match(html, '<th scope="row">&lt;b&gt;&quot;x&quot;&lt;/b&gt;</th><td data-value="0.125">0.13</td>')
  t.notMatch(html, /<b>/)
  t.equal(html.match(/<tr><th scope="row">/g)?.length, MAX_FIGURE_ROWS)
  t.match(html, 'and 3 more')
})
