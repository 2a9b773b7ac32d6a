import type { EventLog } from '../src/eventlog/port.js'
import type { ReadStore } from '../src/readstore/port.js'
import { lagBehind } from '../src/readstore/names.js'
import { buildPosition } from '../src/readstore/build-position.js'
import type { Projector } from '../src/readstore/projector.js'
import type { ProjectionRegistry } from './registry.js'

export interface StoredProjectionStatus {
  readonly position: string | null
  readonly lag: number
}

/** Each projection's committed position and lag as stored, whichever process runs it. */
export const storedStatus = async (
  log: EventLog, store: ReadStore, registry: ProjectionRegistry, projectors: readonly Projector[],
): Promise<Record<string, StoredProjectionStatus>> => {
  const head = await log.headPosition()
  const out: Record<string, StoredProjectionStatus> = {}
  for (const projector of projectors) {
    const entry = await registry.read(projector.name)
    const stored = entry ? await buildPosition(store, projector.name, entry.active) : null
    out[projector.name] = {
      position: stored ? stored.commit.toString() : null,
      lag: lagBehind(head, stored),
    }
  }
  return out
}
