import t from 'tap'
import { LoopDelayMeter, meterLoopDelay, type DelaySamples } from '../../src/http/loop-delay.js'

/** Samples as a test sets them, in ms; read in ns as a histogram gives them. */
class Samples implements DelaySamples {
  private taken: number[] = []
  take(...ms: number[]): void { this.taken.push(...ms) }
  get count(): number { return this.taken.length }
  get mean(): number { return this.taken.length === 0 ? NaN : this.taken.reduce((sum, ms) => sum + ms, 0) / this.taken.length * 1e6 }
  reset(): void { this.taken = [] }
}

t.test('a reading is the mean time the timer took to come round, less its own 10 ms, and starts the next reading afresh', async (t) => {
  let now = 0
  const samples = new Samples()
  const meter = new LoopDelayMeter(samples, () => now)
  samples.take(10, 10, 40)
  now = 250
  t.equal(meter.read(), 10)
  t.equal(samples.count, 0, 'the samples read are dropped')
  samples.take(9)
  now = 500
  t.equal(meter.read(), 0, 'a timer that came early is no delay')
})

t.test('a reading without a single sample counts the whole time since the last reading, a finite delay', async (t) => {
  let now = 1000
  const samples = new Samples()
  const meter = new LoopDelayMeter(samples, () => now)
  now = 1310
  t.equal(meter.read(), 310, 'a loop held through the whole reading')
  samples.take(250)
  now = 1560
  t.equal(meter.read(), 240)
  now = 1830
  t.equal(meter.read(), 270, 'measured from the reading before, not from the start')
})

t.test("a meter over this process's loop reads a loop held past the timer's turns as the time it was held", async (t) => {
  const { meter, stop } = meterLoopDelay()
  t.teardown(stop)
  await new Promise((resolve) => setTimeout(resolve, 50))
  meter.read()
  const until = performance.now() + 300
  while (performance.now() < until) { /* held */ }
  const delay = meter.read()
  t.ok(Number.isFinite(delay), `finite: ${delay}`)
  t.ok(delay >= 290, `at least the time held: ${delay} ms`)
})
