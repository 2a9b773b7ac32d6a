import t from 'tap'
import { renderChartSvg } from '../../src/charts/render.js'
import { input, totalSeries, trendsSeries } from './support/pictures.js'

const HOSTILE = '<script>alert(1)</script>'

t.test('names and labels are escaped in the SVG', async (t) => {
  const series = trendsSeries(2).map((one) => ({ ...one, label: HOSTILE, labels: one.labels.map(() => HOSTILE) }))
  const cases = [
    input({ name: HOSTILE, result: null }),
    input({ name: HOSTILE, timezone: HOSTILE, result: series }),
    input({ name: HOSTILE, display: 'ActionsPie', result: totalSeries(3).map((one) => ({ ...one, label: HOSTILE })) }),
    input({ name: HOSTILE, display: 'ActionsTable', result: totalSeries(3).map((one) => ({ ...one, label: HOSTILE })) }),
    input({ name: HOSTILE, display: 'BoldNumber', result: totalSeries(1).map((one) => ({ ...one, label: HOSTILE })) }),
    input({ name: HOSTILE, kind: 'FunnelsQuery', result: [{ name: HOSTILE, custom_name: HOSTILE, count: 3 }, { name: HOSTILE, count: 1 }] }),
    input({ name: HOSTILE, kind: 'RetentionQuery', result: [{ label: HOSTILE, date: HOSTILE, values: [{ count: 2, label: HOSTILE }] }] }),
  ]
  for (const one of cases) {
    const svg = renderChartSvg(one, { width: 400, height: 240 })
    t.notMatch(svg, '<script', `${one.kind} ${one.display}`)
    t.match(svg, '&lt;script&gt;alert(1)&lt;/script&gt;')
  }
})
