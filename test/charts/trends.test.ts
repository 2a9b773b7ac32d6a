import t from 'tap'
import { renderChartPng, renderChartSvg } from '../../src/charts/render.js'
import { SERIES_COLORS } from '../../src/charts/palette.js'
import { decodePng, inkIn, input, linePathsOf, filledPathsOf, pixelsOf, plotArea, titleBand, trendsSeries } from './support/pictures.js'

const SIZE = { width: 400, height: 240 }

t.test('a line graph draws each series in its palette colour, under its title', async (t) => {
  const picture = decodePng(await renderChartPng(input({ result: trendsSeries(3) }), SIZE))
  t.equal(picture.width, SIZE.width)
  t.equal(picture.height, SIZE.height)
  t.ok(inkIn(picture, titleBand(picture)) > 100, 'the title is written')
  for (const color of SERIES_COLORS.slice(0, 3)) t.ok(pixelsOf(picture, color, plotArea(picture)) > 100, `series in ${color}`)
  t.equal(pixelsOf(picture, SERIES_COLORS[3]!, plotArea(picture)), 0, 'no fourth series')
})

t.test('line kinds draw one line path per series', async (t) => {
  for (const display of ['ActionsLineGraph', 'ActionsLineGraphCumulative', 'ActionsAreaGraph', null]) {
    const svg = renderChartSvg(input({ display, result: trendsSeries(4) }), SIZE)
    t.same(SERIES_COLORS.slice(0, 5).map((color) => linePathsOf(svg, color)), [1, 1, 1, 1, 0], String(display))
  }
  const area = renderChartSvg(input({ display: 'ActionsAreaGraph', result: trendsSeries(2) }), SIZE)
  t.same(SERIES_COLORS.slice(0, 2).map((color) => filledPathsOf(area, color) >= 1), [true, true], 'an area under each line')
})

t.test('every series kind draws its series in the plot', async (t) => {
  for (const display of ['ActionsLineGraphCumulative', 'ActionsAreaGraph', 'ActionsBar', 'ActionsUnstackedBar', 'ActionsStackedBar']) {
    const picture = decodePng(await renderChartPng(input({ display, result: trendsSeries(2) }), SIZE))
    t.same([picture.width, picture.height], [SIZE.width, SIZE.height], display)
    t.ok(inkIn(picture, titleBand(picture)) > 100, `${display}: title`)
    for (const color of SERIES_COLORS.slice(0, 2)) t.ok(pixelsOf(picture, color, plotArea(picture)) > 80, `${display}: ${color}`)
  }
})

t.test('the subtitle gives the range and the timezone', async (t) => {
  const svg = renderChartSvg(input({ result: trendsSeries(1) }), SIZE)
  t.match(svg, '2026-11-01 – 2026-11-27 · Europe/Paris')
  t.match(svg, 'Weekly signups')
})

t.test('at most 25 series are drawn, and long results are cut to their latest points', async (t) => {
  const many = trendsSeries(200, 5)
  const svg = renderChartSvg(input({ result: many }), SIZE)
  t.equal((svg.match(/<path [^>]*fill="none"[^>]*stroke-width="2"[^>]*stroke-linejoin/g) ?? []).length, 25)
  const long = [{ label: 'x', labels: Array.from({ length: 100_000 }, String), data: Array.from({ length: 100_000 }, (_, i) => i % 7), count: 0 }]
  const started = Date.now()
  const picture = decodePng(await renderChartPng(input({ result: long }), SIZE))
  t.ok(Date.now() - started < 3000, 'drawn quickly')
  t.ok(pixelsOf(picture, SERIES_COLORS[0]!, plotArea(picture)) > 100)
})
