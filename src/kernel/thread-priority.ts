import { existsSync, readlinkSync } from 'node:fs'
import { setPriority } from 'node:os'

/**
 * Lowers the calling thread's scheduling priority to `nice` (0–19). Linux schedules each thread
 * as a task of its own, named under /proc/thread-self, so a worker thread can yield to the main
 * thread on a busy CPU while taking every idle cycle. Elsewhere it does nothing. Returns the
 * error when the system refused, so the caller can say so.
 */
export const lowerThreadPriority = (nice: number): unknown => {
  if (nice === 0 || !existsSync('/proc/thread-self')) return null
  try {
    const tid = Number(/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1])
    if (Number.isInteger(tid)) setPriority(tid, nice)
    return null
  } catch (error) {
    return error
  }
}
