import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { returnFreeMemory } from '../../src/kernel/free-memory.js'

/**
 * V8's full collection, reached the way Node allows it at run time: the flag makes every context
 * created afterwards carry `gc`.
 */
const fullCollection = (): (() => void) => {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

/**
 * Collects this thread's garbage once it has been quiet for `quietMs` after some work, and again
 * once it has stayed quiet `settledMs` longer. The first collection frees what the work left;
 * but V8 shrinks a young generation that the work grew (to 48 MB and more) only in a collection
 * made while it sees little being allocated over its last five seconds, so the heap the thread
 * grew is given back to the system by the second. After it, the allocator's free pages are
 * given back too (what the work freed outside V8's heap: SQLite's pages, parsers' buffers).
 */
export const collectWhenQuiet = (quietMs: number, settledMs = 6000): (() => void) => {
  const collect = fullCollection()
  let quiet: NodeJS.Timeout | null = null
  let settled: NodeJS.Timeout | null = null
  return () => {
    if (settled) {
      clearTimeout(settled)
      settled = null
    }
    if (quiet) quiet.refresh()
    else {
      quiet = setTimeout(() => {
        quiet = null
        collect()
        settled = setTimeout(() => {
          settled = null
          collect()
          returnFreeMemory()
        }, settledMs)
        settled.unref()
      }, quietMs)
      quiet.unref()
    }
  }
}
