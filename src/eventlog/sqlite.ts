import type Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { Worker } from 'node:worker_threads'
import { DEFAULT_MAX_APPEND_SIZE, assertDeleteExpectation, deleteAllowed, recordSize, validateEvent } from './append-rules.js'
import { EventLogError, MaxAppendSizeExceeded, StreamDeleted, StreamNotFound, Unavailable, WrongExpectedVersion } from './errors.js'
import { JsonText } from './port.js'
import type {
  AppendOptions, AppendResult, DeleteOptions, EventData, EventLog, ExpectedRevision, Position, ReadAllOptions, ReadStreamOptions,
  RecordedEvent, SubscribeOptions, Subscription,
} from './port.js'
import { DecodedRows, type RowReader } from './decoded-rows.js'
import { sqliteSubscription, type SubscriptionSource } from './sqlite-subscription.js'
import { EVENT_COLUMNS, openLogDatabase, toRecordedEvent, type EventRow } from './sqlite-schema.js'
import type { CommitMessage, CommitReply } from './sqlite-writer-thread.js'
import { SqliteLogWriter, outcomeError, streamStateReader, type AppendOutcome, type AppendRequest, type StoredStreamState } from './sqlite-writer.js'

export interface SqliteEventLogOptions {
  /** File path, or `:memory:` for a throwaway log. */
  readonly path: string
  /** Bytes, counted as EventStoreDB counts them. Default 1 MiB, the server's default. */
  readonly maxAppendSize?: number
  /** How often an idle subscription looks for events written by other processes. Default 50 ms. */
  readonly pollIntervalMs?: number
  /**
   * Commit large groups of appends on a thread of their own (a file log only), so that writing
   * and syncing them never holds this thread's event loop. Default false.
   */
  readonly commitThread?: boolean
}

interface PendingAppend extends AppendRequest {
  readonly bytes: number
  /** The append's data given as movable pieces, which the commit thread may take without a copy. */
  readonly movable: readonly JsonText[]
  readonly resolve: (result: AppendResult) => void
  readonly reject: (error: unknown) => void
}

const PAGE = 500
/**
 * Groups up to this many bytes are committed on the calling thread even when a commit thread
 * runs: a small commit takes less time than the hop to another thread and back. Larger groups
 * (big batches, imports) are committed on the commit thread, so they never hold the event loop.
 */
const INLINE_COMMIT_BYTES = 256 * 1024

const weightOf = (group: readonly PendingAppend[]): number => {
  let bytes = 0
  for (const append of group) bytes += append.bytes
  return bytes
}
const MAX_REVISION = 2n ** 63n - 2n

/** Driver errors stop here: ours pass through, SQLite's (busy, I/O, full) become Unavailable. */
const asEventLogError = (error: unknown): EventLogError =>
  error instanceof EventLogError ? error : new Unavailable(error instanceof Error ? error.message : String(error), { cause: error })

/**
 * The embedded event log: a SQLite file in WAL mode with `synchronous=FULL`, so an acknowledged
 * append survives a crash or power loss. Appends that arrive together are group-committed: one
 * transaction (one fsync) per group, with a savepoint per append so one conflicting append does
 * not fail its neighbours. A group is what one turn of the event loop brings, or what arrived
 * while a large group was being made durable on the commit thread.
 */
export class SqliteEventLog implements EventLog, SubscriptionSource {
  readonly kind = 'sqlite' as const
  readonly pollIntervalMs: number
  private readonly db: Database.Database
  private readonly path: string
  private readonly maxAppendSize: number
  private readonly useCommitThread: boolean
  private pending: PendingAppend[] = []
  private flushScheduled = false
  private closed = false
  private readonly commitListeners = new Set<(types?: ReadonlySet<string>) => void>()
  private readonly statements
  private readonly streamState: (stream: string) => StoredStreamState
  private writer: SqliteLogWriter | null = null
  private commitThread: Worker | null = null
  /** The group the commit thread is making durable, if any. */
  private inFlight: PendingAppend[] | null = null
  private drained: (() => void)[] = []
  private readonly decoded = new DecodedRows()

  constructor(options: SqliteEventLogOptions) {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true })
    this.path = options.path
    this.db = openLogDatabase(options.path)
    this.maxAppendSize = options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE
    this.pollIntervalMs = options.pollIntervalMs ?? 50
    this.useCommitThread = options.commitThread === true && options.path !== ':memory:'
    // Started now rather than at the first large group, so that group does not wait for it to boot.
    if (this.useCommitThread) this.commitThread = this.startCommitThread()
    this.streamState = streamStateReader(this.db)
    this.statements = {
      softDelete: this.db.prepare(`INSERT INTO deleted_streams (stream_id, soft_deleted) VALUES (?, 1)
        ON CONFLICT (stream_id) DO UPDATE SET soft_deleted = 1`),
      tombstone: this.db.prepare(`INSERT INTO deleted_streams (stream_id, tombstoned) VALUES (?, 1)
        ON CONFLICT (stream_id) DO UPDATE SET tombstoned = 1`),
      head: this.db.prepare('SELECT max(global_position) FROM events').pluck(),
      createdAfter: this.db.prepare('SELECT created_ms FROM events WHERE global_position > ? ORDER BY global_position LIMIT 1').pluck(),
      streamForwards: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND stream_revision >= ? ORDER BY stream_revision LIMIT ?`),
      streamBackwards: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND stream_revision <= ? AND stream_revision >= ? ORDER BY stream_revision DESC LIMIT ?`),
      allForwards: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE global_position >= ? ORDER BY global_position LIMIT ?`),
      allBackwards: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE global_position <= ? ORDER BY global_position DESC LIMIT ?`),
    }
  }

  append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new EventLogError('event log is closed'))
    try {
      if (events.length === 0) throw new TypeError('an append needs at least one event')
      const expected = options.expectedRevision ?? 'any'
      if (typeof expected === 'bigint' && (expected < 0n || expected > MAX_REVISION)) throw new TypeError(`expected revision out of range: ${expected}`)
      let size = 0
      const movable: JsonText[] = []
      const serialised = events.map((event) => {
        validateEvent(event)
        const text = event.data instanceof JsonText ? event.data : null
        if (text?.spent) throw new Unavailable('the data of this append was moved to the commit thread by an earlier attempt')
        if (text?.movable) movable.push(text)
        const data = text ? text.text : JSON.stringify(event.data)
        const metadata = event.metadata === undefined ? null : JSON.stringify(event.metadata)
        size += recordSize(event.type, text ? text.bytes : Buffer.byteLength(data as string), metadata === null ? 0 : Buffer.byteLength(metadata))
        return { id: event.id.toLowerCase(), type: event.type, data, metadata }
      })
      if (size > this.maxAppendSize) throw new MaxAppendSizeExceeded(this.maxAppendSize, size)
      return new Promise((resolve, reject) => {
        this.pending.push({ stream, events: serialised, expected, bytes: size, movable, resolve, reject })
        if (!this.flushScheduled && this.inFlight === null) {
          this.flushScheduled = true
          setImmediate(() => this.flush())
        }
      })
    } catch (error) {
      return Promise.reject(error)
    }
  }

  private flush(): void {
    this.flushScheduled = false
    if (this.inFlight !== null) return
    const group = this.pending
    this.pending = []
    if (group.length === 0) return this.settleDrained()
    const now = BigInt(Date.now())
    if (this.useCommitThread && weightOf(group) > INLINE_COMMIT_BYTES) return this.sendToCommitThread(group, now)
    let outcomes: AppendOutcome[]
    try {
      this.writer ??= new SqliteLogWriter(this.db)
      outcomes = this.writer.commit(group, now)
    } catch (error) {
      this.settle(group, asEventLogError(error))
      return this.settleDrained()
    }
    this.settle(group, outcomes)
    this.settleDrained()
  }

  private sendToCommitThread(group: PendingAppend[], now: bigint): void {
    const thread = this.commitThread ??= this.startCommitThread()
    this.inFlight = group
    thread.ref()
    const message: CommitMessage = { group: group.map(({ stream, events, expected }) => ({ stream, events, expected })), now }
    // Pieces of their own move to the thread rather than being copied; this thread then never
    // holds a large group's bytes past the hand-over.
    const transfer = new Set<ArrayBuffer>()
    for (const append of group) for (const text of append.movable) for (const buffer of text.moveOut()) transfer.add(buffer)
    try {
      thread.postMessage(message, [...transfer])
    } catch (error) {
      this.committed(asEventLogError(error))
    }
  }

  private startCommitThread(): Worker {
    const thread = new Worker(new URL('./sqlite-writer-thread.js', import.meta.url), { workerData: { path: this.path } })
    thread.on('message', (reply: CommitReply) => this.committed('failed' in reply ? new Unavailable(reply.failed) : reply.outcomes))
    // A group the thread was making durable when it failed is answered Unavailable (a retry with the same ids is safe).
    thread.on('error', (error) => this.committed(asEventLogError(error)))
    thread.on('exit', () => {
      if (this.commitThread === thread) this.commitThread = null
      this.committed(new Unavailable('the commit thread stopped'))
    })
    thread.unref()
    return thread
  }

  private committed(result: readonly AppendOutcome[] | EventLogError): void {
    const group = this.inFlight
    if (group === null) return
    this.inFlight = null
    this.commitThread?.unref()
    this.settle(group, result)
    this.flush()
  }

  private settle(group: readonly PendingAppend[], result: readonly AppendOutcome[] | EventLogError): void {
    if (result instanceof EventLogError) {
      for (const request of group) request.reject(result)
      return
    }
    // Listened to by projections in this process; a process that only ingests has none.
    const types = new Set<string>()
    const listened = this.commitListeners.size > 0
    group.forEach((request, i) => {
      const outcome = result[i]!
      if ('ok' in outcome) {
        request.resolve(outcome.ok)
        if (listened) for (const event of request.events) types.add(event.type)
      } else request.reject(outcomeError(outcome))
    })
    if (types.size === 0) return
    for (const listener of [...this.commitListeners]) listener(types)
  }

  private settleDrained(): void {
    if (this.pending.length > 0 || this.inFlight !== null) return
    const waiting = this.drained
    this.drained = []
    for (const done of waiting) done()
  }

  /** Resolves once every append made so far is committed or refused. */
  private drain(): Promise<void> {
    if (this.inFlight === null && this.pending.length === 0) return Promise.resolve()
    return new Promise((resolve) => {
      this.drained.push(resolve)
      if (this.inFlight === null) this.flush()
    })
  }

  async *readStream(stream: string, options: ReadStreamOptions = {}): AsyncIterable<RecordedEvent> {
    const state = this.streamState(stream)
    if (state.tombstoned) throw new StreamDeleted(stream)
    const floor = state.truncateBefore
    if (state.softDeleted || state.lastRevision < floor) throw new StreamNotFound(stream)
    const backwards = options.direction === 'backwards'
    let remaining = options.maxCount ?? Number.MAX_SAFE_INTEGER
    const from = options.fromRevision ?? (backwards ? 'end' : 'start')
    if (!backwards) {
      let next = from === 'start' ? floor : from === 'end' ? state.lastRevision + 1n : (from < floor ? floor : from)
      while (remaining > 0) {
        const rows = this.statements.streamForwards.all(stream, next, Math.min(PAGE, remaining)) as EventRow[]
        for (const row of rows) yield toRecordedEvent(row)
        if (rows.length < Math.min(PAGE, remaining)) return
        remaining -= rows.length
        next = rows.at(-1)!.stream_revision + 1n
      }
      return
    }
    let next = from === 'end' ? state.lastRevision : from === 'start' ? floor : from
    while (remaining > 0 && next >= floor) {
      const rows = this.statements.streamBackwards.all(stream, next, floor, Math.min(PAGE, remaining)) as EventRow[]
      for (const row of rows) yield toRecordedEvent(row)
      if (rows.length < Math.min(PAGE, remaining)) return
      remaining -= rows.length
      next = rows.at(-1)!.stream_revision - 1n
    }
  }

  async *readAll(options: ReadAllOptions = {}): AsyncIterable<RecordedEvent> {
    const backwards = options.direction === 'backwards'
    let remaining = options.maxCount ?? Number.MAX_SAFE_INTEGER
    const from = options.fromPosition ?? (backwards ? 'end' : 'start')
    let next: bigint
    if (from === 'start') next = backwards ? 0n : 1n
    else if (from === 'end') next = this.head() + (backwards ? 0n : 1n)
    // Backwards from a position starts strictly before it, as EventStoreDB does.
    else next = backwards ? from.commit - 1n : from.commit
    const statement = backwards ? this.statements.allBackwards : this.statements.allForwards
    while (remaining > 0) {
      const rows = statement.all(next, Math.min(PAGE, remaining)) as EventRow[]
      for (const row of rows) yield toRecordedEvent(row)
      if (rows.length < Math.min(PAGE, remaining)) return
      remaining -= rows.length
      next = rows.at(-1)!.global_position + (backwards ? -1n : 1n)
    }
  }

  subscribeToAll(options: SubscribeOptions = {}): Subscription {
    return sqliteSubscription(this, options)
  }

  /** @internal for subscriptions: the raw head, 0n when empty. */
  head(): bigint {
    return (this.statements.head.get() as bigint | null) ?? 0n
  }

  /** @internal for subscriptions. */
  query(sql: string): Database.Statement {
    return this.db.prepare(sql)
  }

  /** @internal for subscriptions: rows are decoded once for all of this log's subscriptions. */
  decode(row: EventRow): RecordedEvent {
    return this.decoded.decode(row)
  }

  /** @internal for subscriptions: where each one has read to, so rows all have passed are let go. */
  reader(position: bigint): RowReader {
    return this.decoded.reader(position)
  }

  /**
   * @internal for subscriptions: called after every commit of this process that wrote events,
   * with their types (none given when they are not known: another thread's commit, closing).
   */
  onCommit(listener: (types?: ReadonlySet<string>) => void): () => void {
    this.commitListeners.add(listener)
    return () => this.commitListeners.delete(listener)
  }

  /**
   * Another connection to the same file (another thread of this process) has committed: wake the
   * subscriptions now instead of at their next poll.
   */
  notifyExternalCommit(): void {
    if (this.closed) return
    for (const listener of [...this.commitListeners]) listener()
  }

  isClosed(): boolean {
    return this.closed
  }

  async headPosition(): Promise<Position | null> {
    const head = this.statements.head.get() as bigint | null
    return head === null ? null : { commit: head, prepare: head }
  }

  async createdAfter(position: Position | null): Promise<Date | null> {
    const created = this.statements.createdAfter.get(position === null ? 0n : position.commit) as bigint | undefined
    return created === undefined ? null : new Date(Number(created))
  }

  async deleteStream(stream: string, options: DeleteOptions = {}): Promise<void> {
    this.changeStream(stream, options.expectedRevision ?? 'any', 'delete')
  }

  async tombstoneStream(stream: string, options: DeleteOptions = {}): Promise<void> {
    this.changeStream(stream, options.expectedRevision ?? 'any', 'tombstone')
  }

  private changeStream(stream: string, expected: ExpectedRevision, change: 'delete' | 'tombstone'): void {
    if (this.closed) throw new EventLogError('event log is closed')
    assertDeleteExpectation(expected)
    this.db.transaction(() => {
      const state = this.streamState(stream)
      if (state.tombstoned) throw new StreamDeleted(stream)
      if (!deleteAllowed(state, expected, change)) {
        throw new WrongExpectedVersion(stream, expected, state.lastRevision < 0n ? 'no_stream' : state.lastRevision)
      }
      if (change === 'delete') this.statements.softDelete.run(stream)
      else this.statements.tombstone.run(stream)
    }).immediate()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.drain()
    if (this.commitThread) {
      const thread = this.commitThread
      this.commitThread = null
      await new Promise<void>((resolve) => {
        thread.once('exit', () => resolve())
        thread.ref()
        thread.postMessage('close')
      })
    }
    for (const listener of [...this.commitListeners]) listener()
    this.decoded.clear()
    this.db.close()
  }
}
