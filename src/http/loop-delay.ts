import { monitorEventLoopDelay } from 'node:perf_hooks'

/** What a reading needs of a delay histogram: the samples since the last reading, in ns. */
export interface DelaySamples {
  readonly count: number
  readonly mean: number
  reset(): void
}

/** How often the histogram's own timer fires while the loop turns, in ms. */
const RESOLUTION_MS = 10

/**
 * The event loop's mean delay between two readings, in ms. A timer fires every 10 ms while the
 * loop turns, and each firing records how long it took to come round. A reading that finds no
 * sample at all follows a loop held for the whole time since the last reading: that time is the
 * delay, a finite figure each bound can be compared with, rather than an unknown one that would
 * be over every bound.
 */
export class LoopDelayMeter {
  private last: number

  constructor(private readonly samples: DelaySamples, private readonly now: () => number = () => performance.now()) {
    this.last = now()
  }

  read(): number {
    const at = this.now()
    const since = at - this.last
    this.last = at
    const { count, mean } = this.samples
    this.samples.reset()
    return count === 0 ? since : Math.max(0, mean / 1e6 - RESOLUTION_MS)
  }
}

/** A meter over a histogram of this process's loop, and how to stop it. */
export const meterLoopDelay = (): { meter: LoopDelayMeter; stop: () => void } => {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  histogram.enable()
  return { meter: new LoopDelayMeter(histogram), stop: () => histogram.disable() }
}
