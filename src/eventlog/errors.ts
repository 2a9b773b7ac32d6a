import type { ActualRevision, ExpectedRevision } from './port.js'

/** Base class of every error an EventLog adapter raises; driver errors never pass the adapter. */
export class EventLogError extends Error {
  override name = 'EventLogError'
}

export class WrongExpectedVersion extends EventLogError {
  override name = 'WrongExpectedVersion'
  constructor(readonly streamName: string, readonly expected: ExpectedRevision, readonly actual: ActualRevision) {
    super(`Stream ${streamName}: expected revision ${String(expected)}, actual ${String(actual)}`)
  }
}

export class StreamNotFound extends EventLogError {
  override name = 'StreamNotFound'
  constructor(readonly streamName: string) {
    super(`Stream ${streamName} not found`)
  }
}

export class StreamDeleted extends EventLogError {
  override name = 'StreamDeleted'
  constructor(readonly streamName: string) {
    super(`Stream ${streamName} is deleted`)
  }
}

export class MaxAppendSizeExceeded extends EventLogError {
  override name = 'MaxAppendSizeExceeded'
  constructor(readonly maxAppendSize: number, readonly size: number) {
    super(`Append of ${size} bytes exceeds the maximum append size of ${maxAppendSize} bytes`)
  }
}

/** The log could not be reached, or the outcome of a write is unknown; retrying is safe with ids. */
export class Unavailable extends EventLogError {
  override name = 'Unavailable'
}
