import type { RecordedEvent } from '../src/eventlog/port.js'
import { boundedCache } from '../src/kernel/bounded-cache.js'

/** How many log events' derivations are kept: a log event may carry 256 KiB of analytics events. */
const LIMIT = 128

/**
 * Pure derivations of log events (such as the normalised analytics events of a capture request),
 * computed once and shared by every projection of one projection set, which read the same log
 * events at about the same time. The projections never change what they get.
 */
export class DecodedEvents {
  /** Boxed, so that a derivation may be undefined or null. */
  private readonly kept = boundedCache<string, { readonly value: unknown }>({ max: LIMIT })

  get<T>(event: RecordedEvent, name: string, derive: () => T): T {
    const key = `${name}\u0000${event.streamId}\u0000${event.revision}\u0000${event.id}`
    const kept = this.kept.get(key)
    if (kept !== undefined) return kept.value as T
    const value = derive()
    this.kept.set(key, { value })
    return value
  }

  /** Forgets every derivation, and the memory it holds. */
  clear(): void {
    this.kept.clear()
  }
}
