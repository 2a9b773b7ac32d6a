import { ChangeTooLarge } from './errors.js'
import type { EventData, EventLog, ReadStreamOptions, RecordedEvent } from '../eventlog/port.js'

/**
 * A command whose events would not fit in one append (the log refuses appends over 1 MiB) writes
 * them to a part stream of their own first, in appends that fit, and then appends one
 * `ChangeCommitted` naming them to the aggregate's stream, with the exact expected revision like
 * any other change. Until that event is written the parts are seen by no one, so a change cut
 * short leaves nothing behind that counts, and a concurrent command is serialised against the
 * commit as usual. Readers of an aggregate (`readAggregateEvents`, projectors through `expand`)
 * see the parts in place of the commit, as if they had been appended there.
 */
export const CHANGE_COMMITTED = 'ChangeCommitted'

export interface ChangeCommittedData {
  readonly [key: string]: string | number
  /** The stream that holds the change's events. */
  readonly parts: string
  /** How many events it holds. */
  readonly events: number
}

/** A part stream, named by a fresh id for each try at a change; a try that is not committed leaves its parts unread. */
export const partStreamOf = (id: string): string => `change-${id}`

export const isPartStream = (stream: string): boolean => stream.startsWith('change-')

/** Bytes of event data and metadata one append of parts carries at most: half the log's default limit. */
export const PART_APPEND_BYTES = 512 * 1024

/** What an event weighs against the append limit, as the log counts it. */
export const eventWeight = (event: EventData): number =>
  Buffer.byteLength(JSON.stringify(event.data)) + Buffer.byteLength(JSON.stringify(event.metadata ?? {})) + event.type.length * 2

/** Splits events into appends of at most `budget` bytes each (an event heavier than that goes alone). */
export const intoAppends = (events: readonly EventData[], budget = PART_APPEND_BYTES): EventData[][] => {
  const appends: EventData[][] = []
  let current: EventData[] = []
  let weight = 0
  for (const event of events) {
    const w = eventWeight(event)
    if (current.length > 0 && weight + w > budget) {
      appends.push(current)
      current = []
      weight = 0
    }
    current.push(event)
    weight += w
  }
  if (current.length > 0) appends.push(current)
  return appends
}

/** Writes a change's events to its part stream, each append expecting the revision the one before it left. */
export const writeParts = async (log: EventLog, stream: string, appends: readonly EventData[][]): Promise<void> => {
  let expected: bigint | 'no_stream' = 'no_stream'
  for (const events of appends) {
    const result = await log.append(stream, events, { expectedRevision: expected })
    expected = result.nextExpectedRevision
  }
}

/** The events of a committed change, each carrying the commit's stream, revision and position. */
export async function* changeEvents(log: EventLog, commit: RecordedEvent): AsyncGenerator<RecordedEvent> {
  const data = commit.data as unknown as ChangeCommittedData
  let count = 0
  for await (const part of log.readStream(data.parts)) {
    if (count++ >= data.events) break
    yield { ...part, streamId: commit.streamId, revision: commit.revision, position: commit.position }
  }
}

/**
 * An aggregate's events in order, each committed change in place of its commit. `onRecord` sees
 * every event of the aggregate's own stream as stored (commits included), for callers that
 * track event ids or revisions. Throws StreamNotFound from the iteration, as `readStream` does.
 */
export async function* readAggregateEvents(
  log: EventLog, stream: string, options: ReadStreamOptions = {}, onRecord?: (recorded: RecordedEvent) => void,
): AsyncGenerator<RecordedEvent> {
  for await (const recorded of log.readStream(stream, options)) {
    onRecord?.(recorded)
    if (recorded.type === CHANGE_COMMITTED) yield* changeEvents(log, recorded)
    else yield recorded
  }
}

/** The most one event may weigh: what the log takes in one append, with room for its metadata. */
export const MAX_EVENT_BYTES = 1_048_576 - 4096

/** Refuses, before anything is written, an event no append could hold (413 in PostHog's shape). */
export const checkStorable = (type: string, data: unknown): void => {
  const size = Buffer.byteLength(JSON.stringify(data)) + type.length * 2
  if (size > MAX_EVENT_BYTES) throw new ChangeTooLarge(size, MAX_EVENT_BYTES)
}
