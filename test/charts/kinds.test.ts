import t, { type Test } from 'tap'
import { renderChartPng, renderChartSvg } from '../../src/charts/render.js'
import { LIFECYCLE_COLORS, SERIES_COLORS } from '../../src/charts/palette.js'
import { days, decodePng, inkIn, input, linePathsOf, pixelsOf, plotArea, titleBand, totalSeries, type Picture } from './support/pictures.js'
import type { ChartInput } from '../../src/charts/chart-input.js'

const SIZE = { width: 400, height: 240 }

const draw = async (one: ChartInput, size = SIZE): Promise<Picture> => {
  const picture = decodePng(await renderChartPng(one, size))
  return picture
}

const framed = (t: Test, picture: Picture, size = SIZE) => {
  t.same([picture.width, picture.height], [size.width, size.height], 'the asked size')
  t.ok(inkIn(picture, titleBand(picture)) > 100, 'the title is written')
}

const showsColors = (t: Test, picture: Picture, colors: readonly string[], least = 40) => {
  for (const color of colors) t.ok(pixelsOf(picture, color, plotArea(picture)) > least, `${color} is drawn`)
}

t.test('BoldNumber draws the first series\' number big, in its colour', async (t) => {
  const picture = await draw(input({ display: 'BoldNumber', result: totalSeries(1) }))
  framed(t, picture)
  showsColors(t, picture, [SERIES_COLORS[0]!], 500)
  t.match(renderChartSvg(input({ display: 'BoldNumber', result: [{ label: 'x', data: [], aggregated_value: 1234567 }] }), SIZE), '1,234,567')
})

t.test('ActionsPie draws a slice per series in its colour', async (t) => {
  const picture = await draw(input({ display: 'ActionsPie', result: totalSeries(5) }))
  framed(t, picture)
  showsColors(t, picture, SERIES_COLORS.slice(0, 5), 100)
  const many = renderChartSvg(input({ display: 'ActionsPie', result: totalSeries(200).map((one, i) => ({ ...one, aggregated_value: 1000 - i })) }), SIZE)
  t.equal(new Set(many.match(/ecmeta_data_index="\d+"/g)).size, 25, 'at most 25 slices')
})

t.test('ActionsBarValue and WorldMap draw a bar per series in its colour', async (t) => {
  for (const display of ['ActionsBarValue', 'WorldMap']) {
    const picture = await draw(input({ display, result: totalSeries(4) }))
    framed(t, picture)
    showsColors(t, picture, SERIES_COLORS.slice(0, 4), 100)
  }
})

t.test('ActionsTable draws a row per series with its colour, name and value', async (t) => {
  const picture = await draw(input({ display: 'ActionsTable', result: totalSeries(3) }))
  framed(t, picture)
  showsColors(t, picture, SERIES_COLORS.slice(0, 3), 30)
  const svg = renderChartSvg(input({ display: 'ActionsTable', result: totalSeries(3) }), SIZE)
  t.match(svg, '>value 1<')
  t.match(svg, '>93<')
})

const steps = [{ name: '$pageview', custom_name: null, count: 100 }, { name: 'signup', custom_name: 'Signed up', count: 40 }, { name: 'purchase', custom_name: null, count: 10 }]

t.test('funnel steps draw a bar per step with its conversion', async (t) => {
  const one = input({ kind: 'FunnelsQuery', display: null, result: steps })
  const picture = await draw(one)
  framed(t, picture)
  showsColors(t, picture, [SERIES_COLORS[0]!], 300)
  const svg = renderChartSvg(one, SIZE)
  for (const text of ['1. $pageview', '2. Signed up', '40 · 40%', '10 · 10%']) t.match(svg, text)
  const broken = [steps.map((s) => ({ ...s, breakdown_value: ['Chrome'] })), steps.map((s) => ({ ...s, count: s.count / 2, breakdown_value: ['Safari'] }))]
  const byValue = await draw(input({ kind: 'FunnelsQuery', display: 'steps', result: broken }))
  framed(t, byValue)
  showsColors(t, byValue, SERIES_COLORS.slice(0, 2), 100)
})

t.test('funnel trends draw the conversion rate over time; time to convert draws its bins', async (t) => {
  const trends = input({ kind: 'FunnelsQuery', display: 'trends', result: [{ count: 7, data: [10, 20, 30, 25, 40, 35, 50], days: days(7), labels: days(7) }] })
  const picture = await draw(trends)
  framed(t, picture)
  showsColors(t, picture, [SERIES_COLORS[0]!], 100)
  t.equal(linePathsOf(renderChartSvg(trends, SIZE), SERIES_COLORS[0]!), 1)
  const bins = await draw(input({ kind: 'FunnelsQuery', display: 'time_to_convert', result: { average_conversion_time: 90, bins: [[0, 3], [60, 9], [120, 4], [180, 0]] } }))
  framed(t, bins)
  showsColors(t, bins, [SERIES_COLORS[0]!], 300)
})

t.test('retention draws cohorts by periods, shaded by share', async (t) => {
  const result = Array.from({ length: 5 }, (_, c) => ({
    label: `Day ${c}`,
    date: `2026-11-0${c + 1}T00:00:00+01:00`,
    values: Array.from({ length: 5 - c }, (_, k) => ({ count: k === 0 ? 50 : 50 >> k, label: `Day ${k}` })),
  }))
  const one = input({ kind: 'RetentionQuery', result })
  const picture = await draw(one)
  framed(t, picture)
  showsColors(t, picture, [SERIES_COLORS[0]!], 300)
  const svg = renderChartSvg(one, SIZE)
  for (const text of ['Cohort', 'Day 4', '2026-11-03', '100.0%', '50.0%', '24.0%']) t.match(svg, text)
})

t.test('lifecycle draws stacked bars, dormant below the axis, in their status colours', async (t) => {
  const result = (['new', 'returning', 'resurrecting', 'dormant'] as const).map((status) => ({
    label: `$pageview - ${status}`, status, labels: days(8), days: days(8), data: days(8).map((_, i) => (status === 'dormant' ? -1 : 1) * (4 + (i % 3))), count: 0,
  }))
  const picture = await draw(input({ kind: 'LifecycleQuery', result }))
  framed(t, picture)
  showsColors(t, picture, Object.values(LIFECYCLE_COLORS), 150)
})

t.test('stickiness draws a line per series, or bars when asked', async (t) => {
  const result = [0, 1].map((s) => ({ label: `event ${s}`, labels: ['1 day', '2 days', '3 days', '4 days'], days: [1, 2, 3, 4], data: [30 - s * 9, 12, 5 + s, 1], count: 48 }))
  const line = input({ kind: 'StickinessQuery', result })
  framed(t, await draw(line))
  showsColors(t, await draw(line), SERIES_COLORS.slice(0, 2), 60)
  t.same(SERIES_COLORS.slice(0, 2).map((color) => linePathsOf(renderChartSvg(line, SIZE), color)), [1, 1])
  showsColors(t, await draw(input({ kind: 'StickinessQuery', display: 'ActionsBar', result })), SERIES_COLORS.slice(0, 2), 60)
})
