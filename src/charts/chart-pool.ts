import { Piscina } from 'piscina'
import { DomainError } from '../kernel/errors.js'
import type { ChartInput, ChartSize } from './chart-input.js'
import type { ChartTask } from './chart-thread.js'

/** Pictures waiting for the charts thread, at most; past it a request that draws is refused with a 503. */
const MAX_WAITING = 64

/** The charts thread is drawing as many pictures as it may keep waiting. */
export class ChartsBusy extends DomainError {
  override name = 'ChartsBusy'
  constructor() {
    super(503, 'server_error', 'charts_busy', 'Too many pictures are being drawn at once. Try again in a moment.')
    this.retryAfter = 1
  }
}

let pool: Piscina<ChartTask, string | Uint8Array> | null = null

/**
 * One thread draws every picture of the process: laying out a chart takes ECharts some 10 ms and
 * rasterising it more, which the event loop may not be held for. The thread starts with the
 * first picture and stops after a minute without one.
 */
const threads = (): Piscina<ChartTask, string | Uint8Array> => {
  pool ??= new Piscina<ChartTask, string | Uint8Array>({
    filename: new URL('./chart-thread.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
    maxQueue: MAX_WAITING,
    resourceLimits: { maxOldGenerationSizeMb: 512 },
    recordTiming: false,
  })
  return pool
}

const draw = async (task: ChartTask): Promise<string | Uint8Array> => {
  const charts = threads()
  if (charts.queueSize >= MAX_WAITING) throw new ChartsBusy()
  return charts.run(task)
}

/** `renderChartSvg` on the charts thread. */
export const drawChartSvg = async (input: ChartInput, size?: ChartSize): Promise<string> =>
  await draw({ input, format: 'svg', ...(size ? { size } : {}) }) as string

/** `renderChartPng` on the charts thread. */
export const drawChartPng = async (input: ChartInput, size?: ChartSize): Promise<Buffer> => {
  const bytes = await draw({ input, format: 'png', ...(size ? { size } : {}) }) as Uint8Array
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
