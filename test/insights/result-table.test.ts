import t from 'tap'
import { resultTable, tableText } from '../../src/insights/result-table.js'

t.test('trends series show their latest buckets and their totals', async (t) => {
  const labels = Array.from({ length: 9 }, (_, i) => `${i + 1}-Jan-2024`)
  const table = resultTable('TrendsQuery', [
    { label: '$pageview', labels, data: [1, 2, 3, 4, 5, 6, 7, 8, 9], count: 45 },
    { label: 'signup', labels, data: [0, 0, 0, 0, 0, 0, 0, 1, 1200], count: 1201 },
  ])
  t.same(table, {
    columns: ['Series', '3-Jan-2024', '4-Jan-2024', '5-Jan-2024', '6-Jan-2024', '7-Jan-2024', '8-Jan-2024', '9-Jan-2024', 'Total'],
    rows: [['$pageview', '3', '4', '5', '6', '7', '8', '9', '45'], ['signup', '0', '0', '0', '0', '0', '1', '1,200', '1,201']],
  })
  const lines = tableText(table!).split('\n')
  t.ok(lines[0]!.startsWith('Series     3-Jan-2024') && lines[0]!.endsWith('9-Jan-2024  Total'), lines[0]!)
  t.ok(lines[2]!.startsWith('signup              0') && lines[2]!.endsWith('     1,200  1,201'), lines[2]!)
  t.equal(new Set(lines.map((line) => line.length)).size, 1, 'columns line up')
})

t.test('a total display shows one value per series', async (t) => {
  t.same(resultTable('TrendsQuery', [{ label: '$pageview', aggregated_value: 3.14159, data: [] }]), { columns: ['Series', 'Value'], rows: [['$pageview', '3.14']] })
})

t.test('funnel steps show their counts and conversion from the first step', async (t) => {
  t.same(resultTable('FunnelsQuery', [{ name: 'signup', count: 5 }, { name: 'purchase', custom_name: 'Bought', count: 3 }]), {
    columns: ['Step', 'Persons', 'Conversion'], rows: [['1. signup', '5', '100.0 %'], ['2. Bought', '3', '60.0 %']],
  })
  t.same(resultTable('FunnelsQuery', [[{ name: 'a', count: 2 }, { name: 'b', count: 0 }], [{ name: 'a', count: 9 }]])?.rows, [['1. a', '2', '100.0 %'], ['2. b', '0', '0.0 %']], 'a broken-down funnel: its first breakdown')
})

t.test('retention cohorts show who came back in each period', async (t) => {
  t.same(resultTable('RetentionQuery', [{ label: 'Day 0', values: [{ count: 2 }, { count: 1 }] }, { label: 'Day 1', values: [{ count: 3 }] }]), {
    columns: ['Cohort', 'Period 0', 'Period 1'], rows: [['Day 0', '2', '1'], ['Day 1', '3']],
  })
})

t.test('nothing to show is null', async (t) => {
  for (const result of [null, [], 'text', [1, 2], [{ unrelated: true }]]) t.equal(resultTable('TrendsQuery', result), null, JSON.stringify(result))
})
