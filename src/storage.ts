import { accessSync, constants, existsSync, mkdirSync, renameSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Config } from './config.js'
import type { EventLog } from './eventlog/port.js'
import type { ReadStore } from './readstore/port.js'
import { SqliteEventLog } from './eventlog/sqlite.js'
import { SqliteReadStore } from './readstore/sqlite.js'
import { ownFilesOf } from './readstore/sqlite-shards.js'
import { allProjectors } from './modules.js'
import { SqliteFile, type SqliteFileOptions } from './readstore/sqlite-file.js'
import { isBrokenStoreError } from './kernel/storage-errors.js'

/** Storage that cannot be used as configured; the message says what and where, in one line. */
export class StorageError extends Error {
  override name = 'StorageError'
}

export interface OpenStorageOptions {
  /** Told when an unreadable embedded read store was moved aside to be rebuilt from the log. */
  readonly onReadStoreMovedAside?: (path: string, movedTo: string, reason: string) => void
  /** How long an embedded read store write waits for another connection's lock (default 5 s). */
  readonly readStoreBusyTimeoutMs?: number
  /** False: this process's read-store connection leaves copying the WAL back to the connections that write most. */
  readonly readStoreCopiesWal?: boolean
  /** The embedded log commits large groups of appends on a thread of its own (for a process serving requests). */
  readonly commitThread?: boolean
}

const reasonOf = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message
}

/** The directory exists (or can be made) and this process may write in it. */
const ensureWritableDirectory = (path: string): void => {
  if (path === ':memory:') return
  const directory = dirname(path)
  try {
    mkdirSync(directory, { recursive: true })
    accessSync(directory, constants.W_OK | constants.R_OK)
  } catch (error) {
    throw new StorageError(`cannot use the data directory ${directory}: ${reasonOf(error)}`)
  }
}

const openSqliteEventLog = (path: string, commitThread: boolean): SqliteEventLog => {
  ensureWritableDirectory(path)
  try {
    return new SqliteEventLog({ path, commitThread })
  } catch (error) {
    throw new StorageError(`cannot open the event log ${path}: ${reasonOf(error)}`)
  }
}

const storeOptions = (path: string, options: OpenStorageOptions) => ({
  path,
  ...(options.readStoreBusyTimeoutMs !== undefined ? { busyTimeoutMs: options.readStoreBusyTimeoutMs } : {}),
  ...(options.readStoreCopiesWal !== undefined ? { copiesWal: options.readStoreCopiesWal } : {}),
})

/**
 * The embedded read store; a file of it that SQLite cannot read is moved aside (with its journal
 * files) and started afresh, since the projections rebuild every read model from the log.
 */
const openSqliteReadStore = (path: string, options: OpenStorageOptions): SqliteReadStore => {
  ensureWritableDirectory(path)
  const openFile = (fileOptions: SqliteFileOptions): SqliteFile => {
    const file = fileOptions.path
    try {
      return new SqliteFile(fileOptions)
    } catch (error) {
      if (!isBrokenStoreError(error)) throw new StorageError(`cannot open the read store ${file}: ${reasonOf(error)}`)
      const movedTo = `${file}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}`
      for (const suffix of ['', '-wal', '-shm']) if (existsSync(file + suffix)) renameSync(file + suffix, movedTo + suffix)
      options.onReadStoreMovedAside?.(file, movedTo, reasonOf(error))
      return new SqliteFile(fileOptions)
    }
  }
  return new SqliteReadStore({ ...storeOptions(path, options), openFile, ownFiles: ownFilesOf(allProjectors) })
}

/** The event log the configuration names: EventStoreDB when its URL is set, else the SQLite file. */
export const openEventLog = async (config: Config, options: Pick<OpenStorageOptions, 'commitThread'> = {}): Promise<EventLog> =>
  config.HEDGELOG_EVENTSTORE_URL
    ? (await import('./eventlog/esdb.js')).EsdbEventLog.connect(config.HEDGELOG_EVENTSTORE_URL)
    : openSqliteEventLog(config.eventLogPath, options.commitThread === true)

/** The read store the configuration names: MongoDB when its URL is set, else the SQLite file. */
export const openReadStore = async (config: Config, options: OpenStorageOptions = {}): Promise<ReadStore> => {
  if (!config.HEDGELOG_MONGO_URL) return openSqliteReadStore(config.readStorePath, options)
  const { MongoReadStore, NotAReplicaSet } = await import('./readstore/mongo.js')
  try {
    return await MongoReadStore.connect(config.HEDGELOG_MONGO_URL, config.HEDGELOG_MONGO_DATABASE)
  } catch (error) {
    throw error instanceof NotAReplicaSet ? new StorageError(error.message) : error
  }
}

export const openStorage = async (config: Config, options: OpenStorageOptions = {}): Promise<{ log: EventLog; store: ReadStore }> => {
  const log = await openEventLog(config, options)
  try {
    return { log, store: await openReadStore(config, options) }
  } catch (error) {
    await log.close()
    throw error
  }
}
