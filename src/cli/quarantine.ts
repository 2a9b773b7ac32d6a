import { positionToString } from '../eventlog/port.js'
import type { EventLog } from '../eventlog/port.js'
import type { ReadStore } from '../readstore/port.js'
import { allProjectors } from '../modules.js'
import { checkpointNames } from '../readstore/names.js'
import { requestRebuild } from '../../projections/projection-set.js'
import { quarantinedEvents } from '../../projections/quarantine.js'
import type { QuarantinedEvent } from '../readstore/projections.js'
import { ProjectionRegistry } from '../../projections/registry.js'

/** What the active builds have quarantined, in log order per projection. */
export const listQuarantined = async (store: ReadStore): Promise<QuarantinedEvent[]> => {
  const registry = new ProjectionRegistry(store)
  const checkpoints: string[] = []
  for (const projector of allProjectors) {
    const entry = await registry.read(projector.name)
    if (entry) checkpoints.push(...checkpointNames(projector.name, entry.active))
  }
  return quarantinedEvents(store, checkpoints)
}

/**
 * Replays the projections that quarantined something (or the one named): each gets a new build
 * from the start of the log, beside the live one, which the process running the projections picks
 * up within a second and switches to once caught up. Events the fixed code applies are no longer
 * quarantined in the new build; those it still cannot apply are quarantined again.
 */
export const retryQuarantined = async (log: EventLog, store: ReadStore, only?: string): Promise<string[]> => {
  const registry = new ProjectionRegistry(store)
  const names = only ? [only] : [...new Set((await listQuarantined(store)).map((q) => q.projection))]
  const head = await log.headPosition()
  for (const name of names) {
    const projector = allProjectors.find((p) => p.name === name)
    if (!projector) throw new RangeError(`unknown projection: ${name}`)
    await requestRebuild(registry, projector, head ? positionToString(head) : '-1/-1')
  }
  return names
}
