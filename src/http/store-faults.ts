import { isBrokenStoreError, isStoreFault } from '../kernel/storage-errors.js'

/** How long a storage failure seen by a request keeps `/_health` from answering `ok`. */
export const FAULT_MEMORY_MS = 30_000

/**
 * The last storage failure requests met, so that health reports what reads and writes see. A
 * failure that passes (busy, full, unreachable) is forgotten at the next successful request; a
 * damaged store is remembered for `FAULT_MEMORY_MS` after it was last seen, since other requests
 * may succeed beside it.
 */
export class StoreFaults {
  private last: { readonly message: string; readonly at: number; readonly damaged: boolean } | null = null

  /** Remembers `error` if it came from a store; tells whether it did. */
  record(error: unknown): boolean {
    if (!isStoreFault(error)) return false
    this.last = { message: error instanceof Error ? error.message : String(error), at: Date.now(), damaged: isBrokenStoreError(error) }
    return true
  }

  /** A request succeeded: the stores answer again. */
  succeeded(): void {
    if (this.last && !this.last.damaged) this.last = null
  }

  /** The failure seen within the last `FAULT_MEMORY_MS`, with its age in seconds. */
  recent(now = Date.now()): { readonly message: string; readonly secondsAgo: number } | null {
    if (!this.last || now - this.last.at > FAULT_MEMORY_MS) return null
    return { message: this.last.message, secondsAgo: Math.round((now - this.last.at) / 1000) }
  }
}
