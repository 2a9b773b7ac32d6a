import { parsingFailed } from './errors.js'
import type { RawEvent } from './payload.js'
import { SLICE_MS, yieldToLoop } from '../kernel/slices.js'

/** Parses a decoding thread's chunks of events back into one list, yielding the loop between slices. */
export const eventsOfChunks = async (chunks: readonly string[]): Promise<RawEvent[]> => {
  const events: RawEvent[] = []
  let sliceStart = performance.now()
  for (const chunk of chunks) {
    const parsed = JSON.parse(chunk) as unknown
    if (!Array.isArray(parsed)) throw parsingFailed('decoding thread answered an unexpected shape')
    for (const event of parsed) events.push(event as RawEvent)
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldToLoop()
      sliceStart = performance.now()
    }
  }
  return events
}
