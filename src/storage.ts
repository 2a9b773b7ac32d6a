import type { Config } from './config.js'
import type { EventLog } from './eventlog/port.js'
import type { ReadStore } from './readstore/port.js'
import { SqliteEventLog } from './eventlog/sqlite.js'
import { SqliteReadStore } from './readstore/sqlite.js'

/** The event log the configuration names: EventStoreDB when its URL is set, else the SQLite file. */
export const openEventLog = async (config: Config): Promise<EventLog> =>
  config.HEDGELOG_EVENTSTORE_URL
    ? (await import('./eventlog/esdb.js')).EsdbEventLog.connect(config.HEDGELOG_EVENTSTORE_URL)
    : new SqliteEventLog({ path: config.eventLogPath })

/** The read store the configuration names: MongoDB when its URL is set, else the SQLite file. */
export const openReadStore = async (config: Config): Promise<ReadStore> =>
  config.HEDGELOG_MONGO_URL
    ? (await import('./readstore/mongo.js')).MongoReadStore.connect(config.HEDGELOG_MONGO_URL, config.HEDGELOG_MONGO_DATABASE)
    : new SqliteReadStore({ path: config.readStorePath })

export const openStorage = async (config: Config): Promise<{ log: EventLog; store: ReadStore }> => {
  const log = await openEventLog(config)
  try {
    return { log, store: await openReadStore(config) }
  } catch (error) {
    await log.close()
    throw error
  }
}
