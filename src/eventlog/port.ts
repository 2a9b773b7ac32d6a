/**
 * The event log port. It promises only what EventStoreDB and the embedded log both keep, so that
 * code that works on one works on the other: 0-based stream revisions as bigints, `$all`
 * positions as `{commit, prepare}` bigints, inclusive forward reads, exclusive subscription starts,
 * and idempotent appends when the same event ids are retried with an exact revision or `no_stream`.
 */

/** A place in the global log (`$all`). Every event we write has `commit === prepare`. */
export interface Position {
  readonly commit: bigint
  readonly prepare: bigint
}

/**
 * What the writer expects the stream to look like:
 * - `'any'`: no check;
 * - `'no_stream'`: the stream must not exist (a soft-deleted stream counts as absent);
 * - `'stream_exists'`: the stream must exist;
 * - a bigint: the revision of the stream's last event must be exactly this.
 */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint

/** A stream's revision as reported by a conflict: `'no_stream'` when it has no events. */
export type ActualRevision = 'no_stream' | bigint

export type JsonObject = { [key: string]: unknown }

/** A JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * A JSON object already serialised by its producer, as text or as its UTF-8 bytes in pieces
 * (joined where it is written): the log stores it as it is.
 *
 * Pieces given as `movable` are this text's alone, each over a buffer of its own: a log that
 * writes on another thread may move them there instead of copying them. Once moved, the text
 * is spent: it cannot be appended again, and an append of it is refused as unavailable.
 */
export class JsonText {
  private moved = false

  constructor(readonly text: string | readonly Uint8Array[], readonly movable = false) {}

  get bytes(): number {
    return typeof this.text === 'string' ? Buffer.byteLength(this.text) : this.text.reduce((sum, part) => sum + part.byteLength, 0)
  }

  /** Whether the pieces were moved to another thread. */
  get spent(): boolean {
    return this.moved
  }

  /** The buffers to transfer with the pieces, marking the text spent; none when it is not movable. */
  moveOut(): ArrayBuffer[] {
    if (!this.movable || typeof this.text === 'string') return []
    this.moved = true
    return this.text.map((piece) => piece.buffer as ArrayBuffer)
  }

  toString(): string {
    return typeof this.text === 'string' ? this.text : Buffer.concat(this.text).toString('utf8')
  }
}

export interface EventData {
  /**
   * A UUID. Retrying an append with the same ids and the same exact revision or `no_stream` is
   * recognised and not written twice. With `any` or `stream_exists` it is not promised:
   * EventStoreDB recognises such a retry only while an in-memory cache still holds the ids, and
   * the embedded log never does, so a retry that must not duplicate needs an exact expectation.
   */
  readonly id: string
  /** Our own PascalCase past-tense name; never starts with `$`. */
  readonly type: string
  readonly data: JsonObject | JsonText
  readonly metadata?: JsonObject
}

export interface RecordedEvent<Data = JsonObject, Metadata = JsonObject> {
  readonly streamId: string
  readonly id: string
  readonly revision: bigint
  readonly type: string
  readonly data: Data
  readonly metadata: Metadata | undefined
  readonly created: Date
  readonly position: Position
}

export interface AppendResult {
  /** The revision of the last event written: pass it back as the next expected revision. */
  readonly nextExpectedRevision: bigint
  /** The `$all` position of the last event written. */
  readonly position: Position
}

export interface AppendOptions {
  /** Default `'any'`. */
  readonly expectedRevision?: ExpectedRevision
}

/**
 * Deletes take no `stream_exists`: EventStoreDB's delete calls do not, and emulating it (read the
 * last revision, then delete with it) would race with appends. Both logs refuse it with a TypeError.
 */
export interface DeleteOptions {
  /** Default `'any'`. */
  readonly expectedRevision?: Exclude<ExpectedRevision, 'stream_exists'>
}

export interface ReadStreamOptions {
  /** Inclusive. Default `'start'` forwards, `'end'` backwards. */
  readonly fromRevision?: 'start' | 'end' | bigint
  /** Default `'forwards'`. */
  readonly direction?: 'forwards' | 'backwards'
  /** Default unlimited. */
  readonly maxCount?: number
}

export interface ReadAllOptions {
  /**
   * Forwards: inclusive. Backwards from a position: exclusive, the events strictly before it
   * (EventStoreDB's rule); backwards from `'end'` starts with the newest event. Default `'start'`
   * forwards, `'end'` backwards.
   */
  readonly fromPosition?: 'start' | 'end' | Position
  /** Default `'forwards'`. */
  readonly direction?: 'forwards' | 'backwards'
  /** Default unlimited. */
  readonly maxCount?: number
}

/** Subscription filters. Every listed criterion must hold; an empty filter passes everything. */
export interface SubscriptionFilter {
  /** Stream ids starting with one of these. */
  readonly streamPrefixes?: readonly string[]
  /** Event types equal to one of these. */
  readonly eventTypes?: readonly string[]
}

export interface SubscribeOptions {
  /** Exclusive: delivery starts with the event after this position. Default `'start'`. */
  readonly fromPosition?: 'start' | 'end' | Position
  readonly filter?: SubscriptionFilter
  /** Multiplier of the 32-event search window between checkpoint items. Default 1. */
  readonly checkpointInterval?: number
}

export type SubscriptionItem =
  | { readonly kind: 'event'; readonly event: RecordedEvent }
  /** Every matching event at or before `position` has already been delivered. */
  | { readonly kind: 'checkpoint'; readonly position: Position }
  /** History has been delivered; live events follow. */
  | { readonly kind: 'caughtUp' }

export interface Subscription extends AsyncIterable<SubscriptionItem> {
  unsubscribe(): Promise<void>
}

export interface EventLog {
  readonly kind: 'sqlite' | 'eventstoredb'
  /** Throws WrongExpectedVersion, StreamDeleted or MaxAppendSizeExceeded; writes nothing then. */
  append(stream: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult>
  /** Throws StreamNotFound or StreamDeleted from the iteration, not from the call. */
  readStream(stream: string, options?: ReadStreamOptions): AsyncIterable<RecordedEvent>
  readAll(options?: ReadAllOptions): AsyncIterable<RecordedEvent>
  /** A catch-up subscription to `$all` that turns live once history has been delivered. */
  subscribeToAll(options?: SubscribeOptions): Subscription
  /** The position of the newest event, or null when the log is empty. */
  headPosition(): Promise<Position | null>
  /**
   * When the first event after `position` (from the start when null) was written, or null when
   * none is; a log that can tell without reading the event's data offers it.
   */
  createdAfter?(position: Position | null): Promise<Date | null>
  /**
   * Soft delete: reads fail with StreamNotFound; a later append recreates the stream. A stream
   * that was never written cannot be soft-deleted, whatever the expectation: WrongExpectedVersion.
   */
  deleteStream(stream: string, options?: DeleteOptions): Promise<void>
  /** Hard delete: every later read or append fails with StreamDeleted. */
  tombstoneStream(stream: string, options?: DeleteOptions): Promise<void>
  /** Finishes appends in flight, then releases the connection. */
  close(): Promise<void>
}

export const comparePositions = (a: Position, b: Position): number =>
  a.commit === b.commit ? Number(a.prepare - b.prepare > 0n) - Number(a.prepare - b.prepare < 0n)
    : a.commit > b.commit ? 1 : -1

export const positionToString = (p: Position): string => `${p.commit}/${p.prepare}`

export const positionFromString = (text: string): Position => {
  const match = /^(-?\d+)\/(-?\d+)$/.exec(text)
  if (!match) throw new TypeError(`not a log position: ${text}`)
  return { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) }
}
