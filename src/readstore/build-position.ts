import { comparePositions, type Position } from '../eventlog/port.js'
import { checkpointNames, type Build } from './names.js'
import type { ReadStore } from './port.js'

/**
 * How far a build has applied the log as its checkpoints are stored: for a build in partitions,
 * the least of its partitions' positions, since every event before it has been applied by all of
 * them. Null while any partition has none.
 */
export const buildPosition = async (store: ReadStore, projector: string, build: Build): Promise<Position | null> => {
  let least: Position | null = null
  for (const name of checkpointNames(projector, build)) {
    const stored = await store.checkpoint(name)
    if (stored === null) return null
    if (least === null || comparePositions(stored, least) < 0) least = stored
  }
  return least
}
