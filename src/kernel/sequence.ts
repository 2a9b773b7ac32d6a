import type { EventLog } from '../eventlog/port.js'
import { eventMetadata, type CommandContext } from './handle-command.js'
import { newEventId } from './ids.js'

/**
 * Integer ids for resources the API numbers (environments, dashboards, …). Each allocation is an
 * event on `sequence-<kind>`; its revision + 1 is the id, so ids start at 1, are never reused,
 * and the log records who took each one.
 */
export const allocateId = async (log: EventLog, kind: string, context: CommandContext): Promise<number> => {
  const result = await log.append(`sequence-${kind}`, [{
    id: newEventId(),
    type: 'SequenceIdAllocated',
    data: { kind, at: context.now },
    metadata: eventMetadata(context),
  }], { expectedRevision: 'any' })
  return Number(result.nextExpectedRevision) + 1
}
