import t from 'tap'
import { csvText, tablize } from '../../src/exports/csv-text.js'
import { csvRows } from '../../src/exports/csv-rows.js'
import { exportFilename, slugify } from '../../src/exports/filename.js'

t.test('fields with commas, quotes or line breaks are quoted, quotes doubled; formulas are left as they are', async (t) => {
  t.equal(csvText([['a,b', 'say "hi"', 'two\nlines', 'cr\r', '=1+1', '-2', '@x', '+y', null, true, 1.5]]),
    '"a,b","say ""hi""","two\nlines","cr\r",=1+1,-2,@x,+y,,True,1.5\r\n')
  t.equal(csvText([['']]), '""\r\n', 'a row of one empty field is not a blank line')
})

t.test('nested values become dotted columns, grouped by their first name', async (t) => {
  const rows = [{ '*': { event: 'a', properties: { x: 1 } }, n: 1 }, { '*': { event: 'b', properties: { y: 2 } }, n: 2 }]
  t.same([...tablize(rows, null)], [['*.event', '*.properties.x', '*.properties.y', 'n'], ['a', 1, null, 1], ['b', null, 2, 2]])
  t.same([...tablize([{ 'count() -- Total': 3 }], null)], [['Total'], [3]], 'a column comment names the column')
})

t.test('retention cohorts give a row per cohort with a column per period', async (t) => {
  const rows = csvRows({ results: [
    { date: '2024-03-01T00:00:00Z', label: 'Day 0', values: [{ count: 2, label: 'Day 0' }, { count: 1, label: 'Day 1' }] },
    { date: '2024-03-02T00:00:00Z', label: 'Day 1', values: [{ count: 1, label: 'Day 0' }] },
  ] })
  t.equal(csvText(tablize(rows, null)), 'cohort,cohort size,Day 0,Day 1\r\n2024-03-01T00:00:00Z,2,2,1\r\n2024-03-02T00:00:00Z,1,1,\r\n')
})

t.test('series with a breakdown name the property; totals are one column', async (t) => {
  const rows = csvRows({ results: [
    { label: 'signup', breakdown_value: 'Chrome', data: [1, 2], labels: ['1-Mar', '2-Mar'] },
    { label: 'signup', breakdown_value: '$$_posthog_breakdown_other_$$', data: [0, 1], labels: ['1-Mar', '2-Mar'] },
  ] }, { breakdown: '$browser' })
  t.equal(csvText(tablize(rows, null)), 'series,$browser,1-Mar,2-Mar\r\nsignup,Chrome,1,2\r\nsignup,Other (i.e. all remaining values),0,1\r\n')
  const totals = csvRows({ results: [{ label: 'signup', data: null, aggregated_value: 5 }] })
  t.same(totals, [{ series: 'signup', 'Total Sum': 5 }])
})

t.test('file names are slugs of what the export is of, stamped with its time', async (t) => {
  t.equal(slugify('  Ünïcode -- Sign-ups / week!  '), 'unicode-sign-ups-week')
  const createdAt = '2024-05-01T12:03:04.567Z'
  t.equal(exportFilename({ format: 'image/png', exportContext: null, dashboardName: null, insight: { name: null, derived_name: null }, createdAt }),
    'export-insight-2024-05-01-120304.png')
  t.equal(exportFilename({ format: 'text/csv', exportContext: { filename: 'My File' }, dashboardName: null, insight: null, createdAt }), 'my-file-2024-05-01-120304.csv')
})

t.test('a breakdown by a property named __proto__ or constructor is a column like any other', async (t) => {
  for (const property of ['__proto__', 'constructor']) {
    const rows = csvRows({ results: [{ label: 'signup', breakdown_value: 'x', data: [1], labels: ['1-Mar'] }] }, { breakdown: property })
    t.equal(csvText(tablize(rows, null)), `series,${property},1-Mar\r\nsignup,x,1\r\n`, property)
  }
})
