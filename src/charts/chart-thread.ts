import type { ChartInput, ChartSize } from './chart-input.js'
import { renderChartPng, renderChartSvg } from './render.js'

/** One picture to draw on a charts thread. */
export interface ChartTask {
  readonly input: ChartInput
  readonly size?: ChartSize
  readonly format: 'svg' | 'png'
}

/** Draws one picture: the SVG text, or the PNG bytes. Runs on a thread of `chart-pool.ts`. */
export default async function drawChart(task: ChartTask): Promise<string | Uint8Array> {
  if (task.format === 'svg') return renderChartSvg(task.input, task.size)
  return renderChartPng(task.input, task.size)
}
