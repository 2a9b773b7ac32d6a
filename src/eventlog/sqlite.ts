import Database from 'better-sqlite3'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { DEFAULT_MAX_APPEND_SIZE, assertDeleteExpectation, decideAppend, deleteAllowed, recordSize, validateEvent, type StreamState } from './append-rules.js'
import { EventLogError, MaxAppendSizeExceeded, StreamDeleted, StreamNotFound, Unavailable, WrongExpectedVersion } from './errors.js'
import type {
  AppendOptions, AppendResult, DeleteOptions, EventData, EventLog, ExpectedRevision, Position, ReadAllOptions, ReadStreamOptions,
  RecordedEvent, SubscribeOptions, Subscription,
} from './port.js'
import { sqliteSubscription, type SubscriptionSource } from './sqlite-subscription.js'
import { EVENT_COLUMNS, SCHEMA, toRecordedEvent, type EventRow } from './sqlite-schema.js'

export interface SqliteEventLogOptions {
  /** File path, or `:memory:` for a throwaway log. */
  readonly path: string
  /** Bytes, counted as EventStoreDB counts them. Default 1 MiB, the server's default. */
  readonly maxAppendSize?: number
  /** How often an idle subscription looks for events written by other processes. Default 50 ms. */
  readonly pollIntervalMs?: number
}

interface PendingAppend {
  readonly stream: string
  readonly events: readonly { id: string; type: string; data: string; metadata: string | null }[]
  readonly expected: ExpectedRevision
  readonly resolve: (result: AppendResult) => void
  readonly reject: (error: unknown) => void
}

const PAGE = 500
const MAX_REVISION = 2n ** 63n - 2n

/** Driver errors stop here: ours pass through, SQLite's (busy, I/O, full) become Unavailable. */
const asEventLogError = (error: unknown): EventLogError =>
  error instanceof EventLogError ? error : new Unavailable(error instanceof Error ? error.message : String(error), { cause: error })

/**
 * The embedded event log: a SQLite file in WAL mode with `synchronous=FULL`, so an acknowledged
 * append survives a crash or power loss. Appends that arrive together are group-committed: one
 * transaction (one fsync) per turn of the event loop, with a savepoint per append so one
 * conflicting append does not fail its neighbours.
 */
export class SqliteEventLog implements EventLog, SubscriptionSource {
  readonly kind = 'sqlite' as const
  readonly pollIntervalMs: number
  private readonly db: Database.Database
  private readonly maxAppendSize: number
  private pending: PendingAppend[] = []
  private flushScheduled = false
  private closed = false
  private readonly commitListeners = new Set<() => void>()
  private readonly statements
  private readonly commitBatch: Database.Transaction<(batch: PendingAppend[], now: bigint, outcomes: (AppendResult | EventLogError)[]) => void>
  /** Nested inside `commitBatch`, so it runs as a savepoint: a failed append leaves no trace. */
  private readonly writeEvents: Database.Transaction<(stream: string, first: bigint, undelete: boolean, events: PendingAppend['events'], now: bigint) => AppendResult>

  constructor(options: SqliteEventLogOptions) {
    if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true })
    this.db = new Database(options.path)
    this.db.defaultSafeIntegers(true)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('synchronous = FULL')
    this.db.pragma('busy_timeout = 5000')
    this.db.exec(SCHEMA)
    this.maxAppendSize = options.maxAppendSize ?? DEFAULT_MAX_APPEND_SIZE
    this.pollIntervalMs = options.pollIntervalMs ?? 50
    this.statements = {
      lastRevision: this.db.prepare('SELECT max(stream_revision) FROM events WHERE stream_id = ?').pluck(),
      deleted: this.db.prepare('SELECT truncate_before, soft_deleted, tombstoned FROM deleted_streams WHERE stream_id = ?'),
      idAt: this.db.prepare('SELECT event_id FROM events WHERE stream_id = ? AND stream_revision = ?').pluck(),
      positionAt: this.db.prepare('SELECT global_position FROM events WHERE stream_id = ? AND stream_revision = ?').pluck(),
      insert: this.db.prepare('INSERT INTO events (stream_id, stream_revision, event_id, event_type, created_ms, data, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      undelete: this.db.prepare('UPDATE deleted_streams SET soft_deleted = 0, truncate_before = ? WHERE stream_id = ?'),
      softDelete: this.db.prepare(`INSERT INTO deleted_streams (stream_id, soft_deleted) VALUES (?, 1)
        ON CONFLICT (stream_id) DO UPDATE SET soft_deleted = 1`),
      tombstone: this.db.prepare(`INSERT INTO deleted_streams (stream_id, tombstoned) VALUES (?, 1)
        ON CONFLICT (stream_id) DO UPDATE SET tombstoned = 1`),
      head: this.db.prepare('SELECT max(global_position) FROM events').pluck(),
      streamForwards: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND stream_revision >= ? ORDER BY stream_revision LIMIT ?`),
      streamBackwards: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND stream_revision <= ? AND stream_revision >= ? ORDER BY stream_revision DESC LIMIT ?`),
      allForwards: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE global_position >= ? ORDER BY global_position LIMIT ?`),
      allBackwards: this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE global_position <= ? ORDER BY global_position DESC LIMIT ?`),
    }
    this.commitBatch = this.db.transaction((batch, now, outcomes) => {
      for (const request of batch) {
        try {
          outcomes.push(this.appendOne(request, now))
        } catch (error) {
          // The append's savepoint is rolled back; its neighbours still commit.
          outcomes.push(asEventLogError(error))
        }
      }
    })
    this.writeEvents = this.db.transaction((stream, first, undelete, events, now) => {
      let revision = first
      let position = 0n
      for (const event of events) {
        position = this.statements.insert.run(stream, revision, event.id, event.type, now, event.data, event.metadata).lastInsertRowid as bigint
        revision++
      }
      if (undelete) this.statements.undelete.run(first, stream)
      return { nextExpectedRevision: revision - 1n, position: { commit: position, prepare: position } }
    })
  }

  append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new EventLogError('event log is closed'))
    try {
      if (events.length === 0) throw new TypeError('an append needs at least one event')
      const expected = options.expectedRevision ?? 'any'
      if (typeof expected === 'bigint' && (expected < 0n || expected > MAX_REVISION)) throw new TypeError(`expected revision out of range: ${expected}`)
      let size = 0
      const serialised = events.map((event) => {
        validateEvent(event)
        const data = JSON.stringify(event.data)
        const metadata = event.metadata === undefined ? null : JSON.stringify(event.metadata)
        size += recordSize(event.type, Buffer.byteLength(data), metadata === null ? 0 : Buffer.byteLength(metadata))
        return { id: event.id.toLowerCase(), type: event.type, data, metadata }
      })
      if (size > this.maxAppendSize) throw new MaxAppendSizeExceeded(this.maxAppendSize, size)
      return new Promise((resolve, reject) => {
        this.pending.push({ stream, events: serialised, expected, resolve, reject })
        if (!this.flushScheduled) {
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
    const batch = this.pending
    this.pending = []
    if (batch.length === 0) return
    const outcomes: (AppendResult | EventLogError)[] = []
    const now = BigInt(Date.now())
    try {
      this.commitBatch.immediate(batch, now, outcomes)
    } catch (error) {
      const failure = asEventLogError(error)
      for (const request of batch) request.reject(failure)
      return
    }
    batch.forEach((request, i) => {
      const outcome = outcomes[i]!
      if (outcome instanceof EventLogError) request.reject(outcome)
      else request.resolve(outcome)
    })
    for (const listener of [...this.commitListeners]) listener()
  }

  private appendOne(request: PendingAppend, now: bigint): AppendResult | EventLogError {
    const { stream, events, expected } = request
    const state = this.streamState(stream)
    const decision = decideAppend(state, expected, events.map((e) => e.id), {
      idAt: (revision) => this.statements.idAt.get(stream, revision) as string | undefined,
    })
    switch (decision.kind) {
      case 'stream_deleted': return new StreamDeleted(stream)
      case 'wrong_expected_version': return new WrongExpectedVersion(stream, expected, decision.actual)
      case 'idempotent': {
        const position = this.statements.positionAt.get(stream, decision.lastRevision) as bigint
        return { nextExpectedRevision: decision.lastRevision, position: { commit: position, prepare: position } }
      }
      case 'write': {
        if (events.length > 1 || decision.undelete) return this.writeEvents(stream, decision.firstRevision, decision.undelete, events, now)
        // One row is written whole or not at all, so it needs no savepoint of its own.
        const event = events[0]!
        const position = this.statements.insert.run(stream, decision.firstRevision, event.id, event.type, now, event.data, event.metadata).lastInsertRowid as bigint
        return { nextExpectedRevision: decision.firstRevision, position: { commit: position, prepare: position } }
      }
    }
  }

  private streamState(stream: string): StreamState & { truncateBefore: bigint } {
    const lastRevision = (this.statements.lastRevision.get(stream) as bigint | null) ?? -1n
    const deleted = this.statements.deleted.get(stream) as
      | { truncate_before: bigint; soft_deleted: bigint; tombstoned: bigint } | undefined
    return {
      lastRevision,
      softDeleted: deleted?.soft_deleted === 1n,
      tombstoned: deleted?.tombstoned === 1n,
      truncateBefore: deleted?.truncate_before ?? 0n,
    }
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

  /** @internal for subscriptions: called after every commit of this process. */
  onCommit(listener: () => void): () => void {
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
    this.flush()
    this.closed = true
    for (const listener of [...this.commitListeners]) listener()
    this.db.close()
  }
}
