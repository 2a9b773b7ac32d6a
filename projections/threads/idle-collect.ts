import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/**
 * V8's full collection, reached the way Node allows it at run time: the flag makes every context
 * created afterwards carry `gc`.
 */
const fullCollection = (): (() => void) => {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

/**
 * Collects this thread's garbage once it has been quiet for `quietMs` after some work: a thread
 * that folded a flood of large events gives the heap it grew back to the system at once,
 * instead of whenever V8's own memory reducer gets to it.
 */
export const collectWhenQuiet = (quietMs: number): (() => void) => {
  const collect = fullCollection()
  let timer: NodeJS.Timeout | null = null
  return () => {
    if (timer) timer.refresh()
    else {
      timer = setTimeout(() => {
        timer = null
        collect()
      }, quietMs)
      timer.unref()
    }
  }
}
