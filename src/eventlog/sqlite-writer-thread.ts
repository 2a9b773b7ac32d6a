import Database from 'better-sqlite3'
import { parentPort, workerData } from 'node:worker_threads'
import { openLogDatabase } from './sqlite-schema.js'
import { SqliteLogWriter, type AppendRequest } from './sqlite-writer.js'

/** A group of appends to commit, as the log's thread sends it. */
export interface CommitMessage {
  readonly group: readonly AppendRequest[]
  readonly now: bigint
}

/** The answer: one outcome per append, or why the whole commit failed. */
export type CommitReply =
  | { readonly outcomes: ReturnType<SqliteLogWriter['commit']> }
  | { readonly failed: string }

/**
 * The embedded log's durable commits, on a thread of their own: the fsync of each group commit
 * waits here, while the thread that serves requests gathers the next group.
 */
const { path } = workerData as { path: string }
const db: Database.Database = openLogDatabase(path)
const writer = new SqliteLogWriter(db)
parentPort!.on('message', (message: CommitMessage | 'close') => {
  if (message === 'close') {
    db.close()
    parentPort!.close()
    return
  }
  let reply: CommitReply
  try {
    reply = { outcomes: writer.commit(message.group, message.now) }
  } catch (error) {
    reply = { failed: error instanceof Error ? error.message : String(error) }
  }
  parentPort!.postMessage(reply)
})
