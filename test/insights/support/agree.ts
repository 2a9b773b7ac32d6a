import fc from 'fast-check'
import type { Test } from 'tap'

/**
 * Checks an engine against a naive evaluator on random inputs: `both` answers one input with the
 * engine's result and the naive one, compared as JSON; the first disagreement, shrunk, is shown
 * side by side. `INSIGHTS_RUNS` and `INSIGHTS_SEED` override the number of runs and the seed.
 */
export const agreeOnRandomInputs = async <T>(
  t: Test, input: fc.Arbitrary<T>, both: (value: T) => Promise<readonly [unknown, unknown]>, defaults: { runs: number; seed: number },
): Promise<void> => {
  const started = Date.now()
  const numRuns = Number(process.env.INSIGHTS_RUNS ?? defaults.runs)
  const seed = process.env.INSIGHTS_SEED ? Number(process.env.INSIGHTS_SEED) : defaults.seed
  const outcome = await fc.check(fc.asyncProperty(input, async (value) => {
    const [engine, naive] = await both(value)
    return JSON.stringify(engine) === JSON.stringify(naive)
  }), { numRuns, seed })
  if (outcome.failed) {
    const [value] = outcome.counterexample!
    const [engine, naive] = await both(value)
    t.strictSame(engine, naive, JSON.stringify(value))
  } else {
    t.pass(`${outcome.numRuns} random inputs agree`)
  }
  t.comment(`ran in ${Date.now() - started} ms`)
}
