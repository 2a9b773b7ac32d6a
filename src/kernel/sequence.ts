import { StreamNotFound, WrongExpectedVersion } from '../eventlog/errors.js'
import type { EventLog } from '../eventlog/port.js'
import { commandEventId } from './command-ids.js'
import { eventMetadata, type CommandContext } from './handle-command.js'
import { newEventId } from './ids.js'

const allocate = async (log: EventLog, kind: string, context: CommandContext): Promise<number> => {
  const result = await log.append(`sequence-${kind}`, [{
    id: newEventId(),
    type: 'SequenceIdAllocated',
    data: { kind, at: context.now },
    metadata: eventMetadata(context),
  }], { expectedRevision: 'any' })
  return Number(result.nextExpectedRevision) + 1
}

/** How many ids each named command has taken so far in this process. */
const taken = new WeakMap<CommandContext, number>()

const recordedAllocation = async (log: EventLog, stream: string, revision: bigint): Promise<number | null> => {
  try {
    for await (const event of log.readStream(stream, { fromRevision: revision, maxCount: 1 })) {
      if (event.revision === revision) return Number(event.data['id'])
    }
  } catch (error) {
    if (!(error instanceof StreamNotFound)) throw error
  }
  return null
}

/**
 * Integer ids for resources the API numbers (environments, dashboards, …). Each allocation is an
 * event on `sequence-<kind>`; its revision + 1 is the id, so ids start at 1, are never reused,
 * and the log records who took each one.
 *
 * A named command (a request with an `Idempotency-Key`) records the ids it took, in order, on a
 * stream of its own, so running it again takes the same ids: a retried create writes the same
 * resource instead of a second one. An id taken by a run that lost the race is left unused.
 */
export const allocateId = async (log: EventLog, kind: string, context: CommandContext): Promise<number> => {
  if (context.commandId === undefined) return allocate(log, kind, context)
  const ordinal = taken.get(context) ?? 0
  taken.set(context, ordinal + 1)
  const stream = `allocation-${commandEventId(context.commandId, 'allocation', 0)}`
  const revision = BigInt(ordinal)
  const recorded = await recordedAllocation(log, stream, revision)
  if (recorded !== null) return recorded
  const id = await allocate(log, kind, context)
  // The event's id names the id taken: a retry of this append is recognised, while another
  // run's record of a different id is a conflict, and that run's id is the one kept.
  try {
    await log.append(stream, [{
      id: commandEventId(context.commandId, `${stream}/${id}`, ordinal), type: 'CommandIdAllocated', data: { kind, id, at: context.now }, metadata: eventMetadata(context),
    }], { expectedRevision: ordinal === 0 ? 'no_stream' : revision - 1n })
    return id
  } catch (error) {
    if (!(error instanceof WrongExpectedVersion)) throw error
    const theirs = await recordedAllocation(log, stream, revision)
    if (theirs === null) throw error
    return theirs
  }
}
