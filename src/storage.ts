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
import { StoresNotAnswering, waitForStores, type StoreProbe } from './store-wait.js'

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

/** A connection string without its password, to print. */
const printable = (url: string): string => url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')

/** The event log the configuration names, not yet connected: EventStoreDB when its URL is set, else the SQLite file. */
const eventLogOf = async (config: Config, commitThread: boolean): Promise<{ log: EventLog; probes: StoreProbe[] }> => {
  const url = config.HEDGELOG_EVENTSTORE_URL
  if (!url) return { log: openSqliteEventLog(config.eventLogPath, commitThread), probes: [] }
  const { EsdbEventLog } = await import('./eventlog/esdb.js')
  const log = EsdbEventLog.connect(url, { deadlineMs: config.HEDGELOG_EVENTSTORE_DEADLINE_MS, appendDeadlineMs: config.HEDGELOG_EVENTSTORE_APPEND_DEADLINE_MS })
  return { log, probes: [{ what: `the event log (EventStoreDB at ${printable(url)})`, check: async () => { await log.headPosition() } }] }
}

/** The read store the configuration names, not yet connected: MongoDB when its URL is set, else the SQLite file. */
const readStoreOf = async (config: Config, options: OpenStorageOptions): Promise<{ store: ReadStore; probes: StoreProbe[] }> => {
  const url = config.HEDGELOG_MONGO_URL
  if (!url) return { store: openSqliteReadStore(config.readStorePath, options), probes: [] }
  const { MongoReadStore, NotAReplicaSet } = await import('./readstore/mongo.js')
  const store = MongoReadStore.open(url, config.HEDGELOG_MONGO_DATABASE, {
    serverSelectionMs: config.HEDGELOG_MONGO_SERVER_SELECTION_TIMEOUT_MS, connectMs: config.HEDGELOG_MONGO_CONNECT_TIMEOUT_MS, socketMs: config.HEDGELOG_MONGO_SOCKET_TIMEOUT_MS,
  })
  return { store, probes: [{ what: `the read store (MongoDB at ${printable(url)})`, check: () => store.verify(), fatal: (error) => error instanceof NotAReplicaSet }] }
}

/** Stores as configured, and the probes of those that are servers; nothing is asked of a server yet. */
export interface LazyStorage {
  readonly log: EventLog
  readonly store: ReadStore
  /** One per server (EventStoreDB, MongoDB); none for the embedded files. */
  readonly probes: readonly StoreProbe[]
}

/** Opens the embedded files, and clients of the servers without waiting for them to answer. */
export const openStoresLazily = async (config: Config, options: OpenStorageOptions = {}): Promise<LazyStorage> => {
  const { log, probes: logProbes } = await eventLogOf(config, options.commitThread === true)
  try {
    const { store, probes } = await readStoreOf(config, options)
    return { log, store, probes: [...logProbes, ...probes] }
  } catch (error) {
    await log.close()
    throw error
  }
}

/**
 * Waits up to HEDGELOG_STORE_WAIT_MS for `probes` to answer, for a command that cannot work
 * without them; a server that never does, or can never serve, is a StorageError in one line.
 */
const answering = async (config: Config, probes: readonly StoreProbe[]): Promise<void> => {
  const { NotAReplicaSet } = config.HEDGELOG_MONGO_URL ? await import('./readstore/mongo.js') : { NotAReplicaSet: null }
  try {
    await waitForStores(probes, { probeTimeoutMs: Math.max(1000, config.HEDGELOG_STORE_WAIT_MS), giveUpAfterMs: config.HEDGELOG_STORE_WAIT_MS })
  } catch (error) {
    if (error instanceof StoresNotAnswering || (NotAReplicaSet && error instanceof NotAReplicaSet)) throw new StorageError((error as Error).message)
    throw error
  }
}

/** The event log the configuration names, once it answers (see `answering`). */
export const openEventLog = async (config: Config, options: Pick<OpenStorageOptions, 'commitThread'> = {}): Promise<EventLog> => {
  const { log, probes } = await eventLogOf(config, options.commitThread === true)
  try {
    await answering(config, probes)
    return log
  } catch (error) {
    await log.close()
    throw error
  }
}

/** Both stores the configuration names, once they answer (see `answering`). */
export const openStorage = async (config: Config, options: OpenStorageOptions = {}): Promise<{ log: EventLog; store: ReadStore }> => {
  const { log, store, probes } = await openStoresLazily(config, options)
  try {
    await answering(config, probes)
    return { log, store }
  } catch (error) {
    await log.close()
    await store.close()
    throw error
  }
}
