import type Database from 'better-sqlite3'
import { decideAppend, type StreamState } from './append-rules.js'
import { EventLogError, StreamDeleted, Unavailable, WrongExpectedVersion } from './errors.js'
import type { ActualRevision, AppendResult, ExpectedRevision } from './port.js'

/** One append as the writer takes it: events already validated, serialised (data as text or UTF-8 pieces) and weighed. */
export interface AppendRequest {
  readonly stream: string
  readonly events: readonly { id: string; type: string; data: string | readonly Uint8Array[]; metadata: string | null }[]
  readonly expected: ExpectedRevision
}

/**
 * What one append came to, in a form that crosses a thread boundary unchanged (errors as plain
 * data; `outcomeError` turns them back into the log's error classes).
 */
export type AppendOutcome =
  | { readonly ok: AppendResult }
  | { readonly refused: 'stream_deleted'; readonly stream: string }
  | { readonly refused: 'wrong_expected_version'; readonly stream: string; readonly expected: ExpectedRevision; readonly actual: ActualRevision }
  | { readonly refused: 'unavailable'; readonly message: string }

/** The log's error for a refused outcome. */
export const outcomeError = (outcome: Exclude<AppendOutcome, { ok: AppendResult }>): EventLogError => {
  switch (outcome.refused) {
    case 'stream_deleted': return new StreamDeleted(outcome.stream)
    case 'wrong_expected_version': return new WrongExpectedVersion(outcome.stream, outcome.expected, outcome.actual)
    case 'unavailable': return new Unavailable(outcome.message)
  }
}

/** Data as SQLite binds it: UTF-8 pieces joined in a buffer, which the insert casts to text. */
const boundText = (data: string | readonly Uint8Array[]): string | Buffer => (typeof data === 'string' ? data : Buffer.concat(data))

export type StoredStreamState = StreamState & { truncateBefore: bigint }

/** Reads a stream's revision and deletion state; shared by the writer and the log's readers. */
export const streamStateReader = (db: Database.Database): ((stream: string) => StoredStreamState) => {
  const lastRevision = db.prepare('SELECT max(stream_revision) FROM events WHERE stream_id = ?').pluck()
  const deleted = db.prepare('SELECT truncate_before, soft_deleted, tombstoned FROM deleted_streams WHERE stream_id = ?')
  return (stream) => {
    const last = (lastRevision.get(stream) as bigint | null) ?? -1n
    const row = deleted.get(stream) as { truncate_before: bigint; soft_deleted: bigint; tombstoned: bigint } | undefined
    return { lastRevision: last, softDeleted: row?.soft_deleted === 1n, tombstoned: row?.tombstoned === 1n, truncateBefore: row?.truncate_before ?? 0n }
  }
}

/**
 * The append side of the embedded log: a group of appends in one transaction (one fsync), each
 * judged by EventStoreDB's rules against the stream as the transaction sees it, each in its own
 * savepoint so that one refused or failing append leaves no trace and does not fail the others.
 */
export class SqliteLogWriter {
  private readonly streamState: (stream: string) => StoredStreamState
  private readonly statements
  private readonly commitGroup: Database.Transaction<(group: readonly AppendRequest[], now: bigint, outcomes: AppendOutcome[]) => void>
  private readonly writeEvents: Database.Transaction<(stream: string, first: bigint, undelete: boolean, events: AppendRequest['events'], now: bigint) => AppendResult>

  constructor(db: Database.Database) {
    this.streamState = streamStateReader(db)
    this.statements = {
      idAt: db.prepare('SELECT event_id FROM events WHERE stream_id = ? AND stream_revision = ?').pluck(),
      positionAt: db.prepare('SELECT global_position FROM events WHERE stream_id = ? AND stream_revision = ?').pluck(),
      insert: db.prepare('INSERT INTO events (stream_id, stream_revision, event_id, event_type, created_ms, data, metadata) VALUES (?, ?, ?, ?, ?, CAST(? AS TEXT), ?)'),
      undelete: db.prepare('UPDATE deleted_streams SET soft_deleted = 0, truncate_before = ? WHERE stream_id = ?'),
    }
    this.commitGroup = db.transaction((group, now, outcomes) => {
      for (const request of group) {
        try {
          outcomes.push(this.appendOne(request, now))
        } catch (error) {
          outcomes.push({ refused: 'unavailable', message: error instanceof Error ? error.message : String(error) })
        }
      }
    })
    this.writeEvents = db.transaction((stream, first, undelete, events, now) => {
      let revision = first
      let position = 0n
      for (const event of events) {
        position = this.statements.insert.run(stream, revision, event.id, event.type, now, boundText(event.data), event.metadata).lastInsertRowid as bigint
        revision++
      }
      if (undelete) this.statements.undelete.run(first, stream)
      return { nextExpectedRevision: revision - 1n, position: { commit: position, prepare: position } }
    })
  }

  /** Commits `group` durably; one outcome per append, in order. Throws when the commit itself fails. */
  commit(group: readonly AppendRequest[], now: bigint): AppendOutcome[] {
    const outcomes: AppendOutcome[] = []
    this.commitGroup.immediate(group, now, outcomes)
    return outcomes
  }

  private appendOne(request: AppendRequest, now: bigint): AppendOutcome {
    const { stream, events, expected } = request
    const decision = decideAppend(this.streamState(stream), expected, events.map((e) => e.id), {
      idAt: (revision) => this.statements.idAt.get(stream, revision) as string | undefined,
    })
    switch (decision.kind) {
      case 'stream_deleted': return { refused: 'stream_deleted', stream }
      case 'wrong_expected_version': return { refused: 'wrong_expected_version', stream, expected, actual: decision.actual }
      case 'idempotent': {
        const position = this.statements.positionAt.get(stream, decision.lastRevision) as bigint
        return { ok: { nextExpectedRevision: decision.lastRevision, position: { commit: position, prepare: position } } }
      }
      case 'write': {
        if (events.length > 1 || decision.undelete) return { ok: this.writeEvents(stream, decision.firstRevision, decision.undelete, events, now) }
        // One row is written whole or not at all, so it needs no savepoint of its own.
        const event = events[0]!
        const position = this.statements.insert.run(stream, decision.firstRevision, event.id, event.type, now, boundText(event.data), event.metadata).lastInsertRowid as bigint
        return { ok: { nextExpectedRevision: decision.firstRevision, position: { commit: position, prepare: position } } }
      }
    }
  }
}
