import type { Config } from './config.js'
import type { EventLog } from './eventlog/port.js'
import type { ReadStore } from './readstore/port.js'
import { SqliteEventLog } from './eventlog/sqlite.js'
import { SqliteReadStore } from './readstore/sqlite.js'

/** Opens the event log and read store the configuration names: embedded SQLite unless URLs are set. */
export const openStorage = async (config: Config): Promise<{ log: EventLog; store: ReadStore }> => {
  const log: EventLog = config.HEDGELOG_EVENTSTORE_URL
    ? (await import('./eventlog/esdb.js')).EsdbEventLog.connect(config.HEDGELOG_EVENTSTORE_URL)
    : new SqliteEventLog({ path: config.eventLogPath })
  try {
    const store: ReadStore = config.HEDGELOG_MONGO_URL
      ? await (await import('./readstore/mongo.js')).MongoReadStore.connect(config.HEDGELOG_MONGO_URL, config.HEDGELOG_MONGO_DATABASE)
      : new SqliteReadStore({ path: config.readStorePath })
    return { log, store }
  } catch (error) {
    await log.close()
    throw error
  }
}
