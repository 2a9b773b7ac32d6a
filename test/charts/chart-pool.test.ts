import t from 'tap'
import { drawChartPng, drawChartSvg } from '../../src/charts/chart-pool.js'
import { renderChartSvg } from '../../src/charts/render.js'
import { decodePng, input, trendsSeries } from './support/pictures.js'

const SIZE = { width: 400, height: 240 }

t.test('the charts thread draws the same SVG as the renderer, and PNGs of the asked size', async (t) => {
  const chart = input({ result: trendsSeries(3) })
  t.equal(await drawChartSvg(chart, SIZE), renderChartSvg(chart, SIZE))
  const picture = decodePng(await drawChartPng(chart, SIZE))
  t.same([picture.width, picture.height], [SIZE.width, SIZE.height])
})

t.test('the event loop goes on while pictures are drawn', async (t) => {
  const chart = input({ result: trendsSeries(5) })
  const large = { width: 1600, height: 900 }
  await drawChartSvg(chart, large) // the thread is started and warm
  const began = performance.now()
  renderChartSvg(chart, large)
  const oneOnThisThread = performance.now() - began
  let longestGap = 0
  let last = performance.now()
  let running = true
  const spin = (): void => {
    const now = performance.now()
    longestGap = Math.max(longestGap, now - last)
    last = now
    if (running) setImmediate(spin)
  }
  setImmediate(spin)
  const drawn = await Promise.all(Array.from({ length: 8 }, () => drawChartSvg(chart, large)))
  running = false
  t.equal(drawn.length, 8)
  // Drawn on this thread, the eight pictures would hold the loop for eight times one picture's time at once.
  t.ok(longestGap < 4 * oneOnThisThread, `the loop waited ${longestGap.toFixed(1)} ms at most; one picture takes ${oneOnThisThread.toFixed(1)} ms here`)
})
