import {
  ANY, BACKWARDS, END, EventStoreDBClient, FORWARDS, MaxAppendSizeExceededError, NO_STREAM, START, STREAM_EXISTS,
  WrongExpectedVersionError, jsonEvent, type ExpectedRevision as ClientExpectedRevision, type ReadRevision,
} from '@eventstore/db-client'
import { assertDeleteExpectation, recordSize, validateEvent } from './append-rules.js'
import { HeadWatcher } from './esdb-head-watcher.js'
import { refusedEsdbOption, withDefaultDeadline } from './esdb-options.js'
import type { ScanRecord, ScanWindow } from './esdb-quiet-head.js'
import { newReadCounts, type ReadCounts } from './esdb-read-counts.js'
import { EventLogError, MaxAppendSizeExceeded, Unavailable, WrongExpectedVersion } from './errors.js'
import {
  asCommandError, esdbSubscription, fromClientPosition, fromClientRecord, isSystemRecord, positionOf, records, toEventLogError, toReadPosition,
} from './esdb-subscription.js'
import { JsonText, comparePositions, type JsonObject } from './port.js'
import type {
  ActualRevision, AppendOptions, AppendResult, DeleteOptions, EventData, EventLog, ExpectedRevision, Position, ReadAllOptions,
  ReadStreamOptions, RecordedEvent, SubscribeOptions, Subscription,
} from './port.js'

const clientRevision = (expected: Exclude<ExpectedRevision, 'stream_exists'>): ClientExpectedRevision => {
  if (expected === 'any') return ANY
  if (expected === 'no_stream') return NO_STREAM
  // The client would send a negative revision as a huge unsigned one, or fail to encode it.
  if (expected < 0n) throw new TypeError(`expected revision must not be negative: ${expected}`)
  return expected
}

const actualRevision = (actual: bigint | 'no_stream'): ActualRevision =>
  actual === 'no_stream' || BigInt(actual) < 0n ? 'no_stream' : BigInt(actual)

/** Write-side translation; the expectation reported is the caller's, in our spelling. */
export const toWriteError = (raw: unknown, stream: string, expected: ExpectedRevision, size: number): unknown => {
  const error = asCommandError(raw)
  if (error instanceof WrongExpectedVersionError) return new WrongExpectedVersion(stream, expected, actualRevision(error.actualVersion))
  if (error instanceof MaxAppendSizeExceededError) return new MaxAppendSizeExceeded(error.maxAppendSize, size)
  return toEventLogError(raw, stream)
}

/** How long an append may take on the server before it counts as unavailable. */
const APPEND_DEADLINE_MS = 10_000

const withinDeadline = <T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> => {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(late()), ms) })
  return Promise.race([work, expired]).finally(() => clearTimeout(timer))
}

const samePosition = (a: Position, b: Position): boolean => a.commit === b.commit && a.prepare === b.prepare

/**
 * The production event log: a thin translation of our port onto `@eventstore/db-client`. The
 * server enforces the append rules that the SQLite log restates; this adapter only validates what
 * the server would mangle and maps names, positions and errors.
 */
export class EsdbEventLog implements EventLog {
  readonly kind = 'eventstoredb' as const
  private closed = false
  private readonly inFlight = new Set<Promise<void>>()
  /** The reads this log has sent to the server, by purpose; what an idle deployment costs is read here. */
  readonly readsIssued: ReadCounts = newReadCounts()
  private readonly watcher: HeadWatcher

  constructor(private readonly client: EventStoreDBClient, private readonly appendDeadlineMs = APPEND_DEADLINE_MS) {
    this.watcher = new HeadWatcher({
      newest: () => this.newestPosition(),
      scan: (from, head, limit) => this.scanFrom(from, head, limit),
    })
  }

  /**
   * The client connects lazily, on the first call; `esdb://host:2113?tls=false` for a dev node.
   * `deadlineMs` is the gRPC deadline of reads and subscription calls (10 s when not given),
   * `appendDeadlineMs` that of appends.
   */
  static connect(connectionString: string, options: { appendDeadlineMs?: number; deadlineMs?: number } = {}): EsdbEventLog {
    const refused = refusedEsdbOption(connectionString)
    if (refused) throw new TypeError(`EventStoreDB connection string refused: ${refused}`)
    const url = options.deadlineMs === undefined ? connectionString : withDefaultDeadline(connectionString, options.deadlineMs)
    return new EsdbEventLog(EventStoreDBClient.connectionString(url), options.appendDeadlineMs)
  }

  /** The client would quietly open a new channel after dispose(). */
  private assertOpen(): void {
    if (this.closed) throw new EventLogError('event log is closed')
  }

  async append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    this.assertOpen()
    if (events.length === 0) throw new TypeError('an append needs at least one event')
    const expected = options.expectedRevision ?? 'any'
    const expectedRevision = expected === 'stream_exists' ? STREAM_EXISTS : clientRevision(expected)
    let size = 0
    const proposed = events.map((event) => {
      validateEvent(event)
      // Serialised here so that a bigint fails in our code: inside the client's batch writer the
      // TypeError would become an unhandled rejection and the append would never settle.
      const text = event.data instanceof JsonText ? event.data.toString() : JSON.stringify(event.data)
      const metadata = event.metadata === undefined ? 0 : Buffer.byteLength(JSON.stringify(event.metadata))
      size += recordSize(event.type, Buffer.byteLength(text), metadata)
      const data = event.data instanceof JsonText ? JSON.parse(text) as JsonObject : event.data
      return jsonEvent({ id: event.id, type: event.type, data, metadata: event.metadata })
    })
    const work = (async (): Promise<AppendResult> => {
      try {
        // The client's deadline does not cover every wait (connecting to a server that accepts TCP
        // and never answers), so the append also races a timer a little longer than it.
        const result = await withinDeadline(
          this.client.appendToStream(stream, proposed, { expectedRevision, deadline: this.appendDeadlineMs }),
          this.appendDeadlineMs + 1000,
          () => new Unavailable(`EventStoreDB did not answer an append to ${stream} within ${this.appendDeadlineMs + 1000} ms`),
        )
        // Only possible with throwOnAppendFailure=false, which connect() refuses; never take it as written.
        if (!result.success) throw new EventLogError(`EventStoreDB refused the append to ${stream} without an error`)
        const revision = BigInt(result.nextExpectedRevision)
        const position = result.position ? fromClientPosition(result.position) : await this.positionAt(stream, revision)
        // Idle subscriptions whose filters skip this event need a checkpoint past it: look soon.
        this.watcher.nudge()
        return { nextExpectedRevision: revision, position }
      } catch (error) {
        throw toWriteError(error, stream, expected, size)
      }
    })()
    const settled = work.then(() => undefined, () => undefined)
    this.inFlight.add(settled)
    void settled.then(() => this.inFlight.delete(settled))
    return work
  }

  /** A server may answer an idempotent retry with no position; the stored event has it. */
  private async positionAt(stream: string, revision: bigint): Promise<Position> {
    for await (const event of this.readStream(stream, { fromRevision: revision, maxCount: 1 })) return event.position
    throw new EventLogError(`Stream ${stream} has no event at revision ${revision}`)
  }

  async *readStream(stream: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen()
    const backwards = options.direction === 'backwards'
    let from = options.fromRevision ?? (backwards ? 'end' : 'start')
    let remaining = options.maxCount ?? Number.MAX_SAFE_INTEGER
    if (typeof from === 'bigint' && from < 0n) {
      if (backwards) remaining = 0
      from = 'start'
    }
    const fromRevision: ReadRevision = from === 'start' ? START : from === 'end' ? END : from
    // At least one event is asked for, so that a missing stream fails even when none is wanted,
    // as it does embedded. Our own streams never hold `$` events, so maxCount can go to the server.
    this.readsIssued.other++
    const read = this.client.readStream(stream, { fromRevision, direction: backwards ? BACKWARDS : FORWARDS, maxCount: Math.max(1, remaining) })
    for await (const resolved of records(read, (error) => toEventLogError(error, stream))) {
      if (remaining <= 0) return
      if (!resolved.event || isSystemRecord(resolved.event)) continue
      yield fromClientRecord(resolved.event)
      remaining--
    }
  }

  /**
   * `$all` holds system events that the embedded log does not; they are skipped and do not count
   * against maxCount, so a full page that had some is followed by another one. Forward pages
   * after the first start at the last position read, inclusively, so that record is skipped;
   * backwards the server starts strictly before a position, as the port promises.
   */
  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    this.assertOpen()
    const backwards = options.direction === 'backwards'
    let remaining = options.maxCount ?? Number.MAX_SAFE_INTEGER
    let from = toReadPosition(options.fromPosition ?? (backwards ? 'end' : 'start'))
    let skip: Position | undefined
    while (remaining > 0) {
      const page = remaining + (skip ? 1 : 0)
      let received = 0
      let last: Position | undefined
      this.readsIssued.other++
      const read = this.client.readAll({ fromPosition: from, direction: backwards ? BACKWARDS : FORWARDS, maxCount: page })
      for await (const resolved of records(read, toEventLogError)) {
        received++
        if (!resolved.event) continue
        const position = positionOf(resolved.event)
        if (skip && samePosition(skip, position)) continue
        last = position
        if (isSystemRecord(resolved.event)) continue
        yield fromClientRecord(resolved.event)
        if (--remaining === 0) return
      }
      if (received < page || !last) return
      from = last
      skip = last
    }
  }

  subscribeToAll(options: SubscribeOptions = {}): Subscription {
    return esdbSubscription({
      client: this.client,
      headPosition: () => this.headPosition(),
      waitIdle: (question) => this.watcher.wait(question),
      isClosed: () => this.closed,
    }, options)
  }

  /**
   * The newest record's position, system records included: what the head watcher polls. The
   * client's reads of `$all` carry each record's body and take no server-side filter (client
   * 6.2.1 always sends `no_filter`), so one record is the least this read can fetch.
   */
  private async newestPosition(): Promise<Position | null> {
    this.readsIssued.head++
    const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 })
    for await (const resolved of records(read, toEventLogError)) if (resolved.event) return positionOf(resolved.event)
    return null
  }

  /** `$all` forwards from `from` (inclusive), up to `limit + 1` records, stopping past `head`. */
  private async scanFrom(from: Position | null, head: Position, limit: number): Promise<ScanWindow> {
    this.readsIssued.quietScan++
    const maxCount = limit + 1
    const found: ScanRecord[] = []
    let received = 0
    const read = this.client.readAll({ fromPosition: from ? toReadPosition(from) : START, direction: FORWARDS, maxCount })
    for await (const resolved of records(read, toEventLogError)) {
      received++
      if (!resolved.event) continue
      const record = { position: positionOf(resolved.event), type: resolved.event.type, streamId: resolved.event.streamId }
      found.push(record)
      if (comparePositions(record.position, head) > 0) return { records: found, complete: true }
    }
    return { records: found, complete: received < maxCount }
  }

  /**
   * The newest non-system event among the last few records. When those are all system events,
   * the newest record's position will do, unless they reach back to the start of the log: a log
   * with no events of ours is empty, as it is embedded. The newest record alone is read first:
   * the server sends a whole page before the client stops reading, and it is nearly always ours.
   */
  async headPosition(): Promise<Position | null> {
    this.assertOpen()
    const window = 32
    let newest: Position | null = null
    let seen = 0
    for (const maxCount of [1, window]) {
      seen = 0
      this.readsIssued.head++
      const read = this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount })
      for await (const resolved of records(read, toEventLogError)) {
        seen++
        if (!resolved.event) continue
        const position = positionOf(resolved.event)
        newest ??= position
        if (!isSystemRecord(resolved.event)) return position
      }
      if (seen < maxCount) return null
    }
    return newest
  }

  async deleteStream(stream: string, options: DeleteOptions = {}): Promise<void> {
    await this.changeStream(stream, options.expectedRevision ?? 'any', 'delete')
  }

  async tombstoneStream(stream: string, options: DeleteOptions = {}): Promise<void> {
    await this.changeStream(stream, options.expectedRevision ?? 'any', 'tombstone')
  }

  private async changeStream(stream: string, expected: ExpectedRevision, change: 'delete' | 'tombstone'): Promise<void> {
    this.assertOpen()
    assertDeleteExpectation(expected)
    const revision = clientRevision(expected as Exclude<ExpectedRevision, 'stream_exists'>)
    try {
      if (change === 'delete') await this.client.deleteStream(stream, { expectedRevision: revision })
      else await this.client.tombstoneStream(stream, { expectedRevision: revision })
    } catch (error) {
      throw toWriteError(error, stream, expected, 0)
    }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.watcher.close()
    await Promise.all(this.inFlight)
    await this.client.dispose()
  }
}
