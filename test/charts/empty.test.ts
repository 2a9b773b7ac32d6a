import t from 'tap'
import { renderChartPng, renderChartSvg } from '../../src/charts/render.js'
import { decodePng, inkIn, input, plotArea, titleBand } from './support/pictures.js'

const SIZE = { width: 320, height: 200 }

const nothing: [string, string | null, unknown][] = [
  ['TrendsQuery', null, null],
  ['TrendsQuery', null, []],
  ['TrendsQuery', 'ActionsPie', []],
  ['TrendsQuery', 'BoldNumber', [{ nothing: true }]],
  ['TrendsQuery', null, { not: 'a list' }],
  ['TrendsQuery', null, 'text'],
  ['TrendsQuery', null, [1, 2, 3]],
  ['TrendsQuery', null, [{ label: 'x', data: [] }]],
  ['FunnelsQuery', null, null],
  ['FunnelsQuery', null, []],
  ['FunnelsQuery', 'steps', [[]]],
  ['FunnelsQuery', 'time_to_convert', { bins: 'no' }],
  ['FunnelsQuery', 'trends', [{ nope: 1 }]],
  ['RetentionQuery', null, null],
  ['RetentionQuery', null, [{ values: 'x' }]],
  ['LifecycleQuery', null, []],
  ['StickinessQuery', null, [null]],
  ['PathsQuery', null, [{ source: 'a', target: 'b', value: 1 }]],
  [null as unknown as string, null, null],
]

t.test('a result with nothing to draw draws the frame saying so', async (t) => {
  for (const [kind, display, result] of nothing) {
    const svg = renderChartSvg(input({ kind, display, result }), SIZE)
    t.match(svg, 'No results yet', `${kind} ${display} ${JSON.stringify(result)}`)
    t.match(svg, 'Weekly signups')
  }
})

t.test('the empty frame is a picture of the asked size with its title', async (t) => {
  const picture = decodePng(await renderChartPng(input({ result: null }), SIZE))
  t.same([picture.width, picture.height], [SIZE.width, SIZE.height])
  t.ok(inkIn(picture, titleBand(picture)) > 100, 'title')
  t.ok(inkIn(picture, plotArea(picture)) > 50, 'the message')
})

t.test('sizes out of bounds are brought within them', async (t) => {
  const tiny = decodePng(await renderChartPng(input({ result: null }), { width: 1, height: Number.NaN }))
  t.same([tiny.width, tiny.height], [120, 450])
  t.match(renderChartSvg(input({ result: null }), { width: 1e9, height: 200 }), 'width="4000"')
})

t.test('no name and no range still draw', async (t) => {
  const svg = renderChartSvg(input({ name: '', dateRange: null, timezone: 'UTC', result: null }), SIZE)
  t.match(svg, 'Untitled insight')
  t.match(svg, '>UTC<')
})
