import type { Position, RecordedEvent } from '../src/eventlog/port.js'
import type { ReadStore } from '../src/readstore/port.js'
import type { QuarantinedEvent } from '../src/readstore/projections.js'

import { QUARANTINE } from '../src/readstore/names.js'

export { QUARANTINE }

const MAX_ERROR_TEXT = 500

/** An error as one bounded line: what an operator needs, nothing that grows with the input. */
export const errorText = (error: unknown): string => {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  const line = text.split('\n', 1)[0]!
  return line.length > MAX_ERROR_TEXT ? `${line.slice(0, MAX_ERROR_TEXT)}…` : line
}

const positionText = (position: Position): string => `${position.commit}/${position.prepare}`

export const quarantineRecord = (
  checkpoint: string, projection: string, event: RecordedEvent, part: number | null, error: unknown,
): QuarantinedEvent => ({
  // Padded so ids sort in log order.
  id: `${checkpoint}|${event.position.commit.toString().padStart(20, '0')}|${event.id}|${part ?? '-'}`,
  checkpoint,
  projection,
  position: positionText(event.position),
  part,
  event_id: event.id,
  event_type: event.type,
  stream_id: event.streamId,
  revision: event.revision.toString(),
  error: errorText(error),
})

/** The quarantined events of the given builds (checkpoint names), in log order. */
export const quarantinedEvents = async (store: ReadStore, checkpoints: readonly string[]): Promise<QuarantinedEvent[]> => {
  const out: QuarantinedEvent[] = []
  for (const checkpoint of checkpoints) out.push(...await store.find<QuarantinedEvent>(QUARANTINE, { where: { checkpoint } }))
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}
