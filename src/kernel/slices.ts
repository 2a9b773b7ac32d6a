/** Longest stretch of work a request may do on the event loop before it lets other requests in. */
export const SLICE_MS = 4

/** Lets the event loop serve others (I/O callbacks included) before the caller continues. */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Runs `step` over `items` in order, handing the event loop back whenever a slice has run for
 * `SLICE_MS`, so that per-item work on a large request never holds the loop for long.
 */
export const forEachSliced = async <T>(items: readonly T[], step: (item: T, index: number) => void): Promise<void> => {
  let sliceStart = performance.now()
  for (let i = 0; i < items.length; i++) {
    step(items[i]!, i)
    if ((i & 63) === 63 && performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop()
      sliceStart = performance.now()
    }
  }
}
