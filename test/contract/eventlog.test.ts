import t from 'tap'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { tempDir } from '../support/temp.js'
import { eventLogContract, type EventLogAdapter } from './eventlog-contract.js'

const adapters: EventLogAdapter[] = [
  { name: 'sqlite', exactSizes: true, open: async () => new SqliteEventLog({ path: join(tempDir(t), 'events.sqlite') }) },
  { name: 'sqlite with a commit thread', exactSizes: true, open: async () => new SqliteEventLog({ path: join(tempDir(t), 'events.sqlite'), commitThread: true }) },
]
const esdbUrl = process.env['HEDGELOG_TEST_EVENTSTORE_URL']
if (esdbUrl) {
  const { EsdbEventLog } = await import('../../src/eventlog/esdb.js')
  const { totalReads } = await import('../../src/eventlog/esdb-read-counts.js')
  adapters.push({
    name: 'eventstoredb',
    exactSizes: false,
    open: async () => EsdbEventLog.connect(esdbUrl),
    readsIssued: (log) => totalReads((log as InstanceType<typeof EsdbEventLog>).readsIssued),
  })
} else {
  t.comment('event log contract: skipped eventstoredb (set HEDGELOG_TEST_EVENTSTORE_URL to run it)')
}

for (const adapter of adapters) {
  t.test(`event log contract on ${adapter.name}`, async (t) => eventLogContract(t, adapter))
}
