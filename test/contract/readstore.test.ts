import t from 'tap'
import { join } from 'node:path'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { randomUuid } from '../../src/kernel/ids.js'
import { tempDir } from '../support/temp.js'
import { readStoreContract, type ReadStoreAdapter } from './readstore-contract.js'

const adapters: ReadStoreAdapter[] = [
  { name: 'sqlite', open: async () => new SqliteReadStore({ path: join(tempDir(t), 'readmodels.sqlite') }) },
]
const mongoUrl = process.env['HEDGELOG_TEST_MONGO_URL']
if (mongoUrl) {
  const { MongoReadStore } = await import('../../src/readstore/mongo.js')
  adapters.push({ name: 'mongodb', open: async () => MongoReadStore.connect(mongoUrl, `hedgelog_test_${randomUuid().slice(0, 8)}`) })
} else {
  t.comment('read store contract: skipped mongodb (set HEDGELOG_TEST_MONGO_URL to run it)')
}

for (const adapter of adapters) {
  t.test(`read store contract on ${adapter.name}`, async (t) => readStoreContract(t, adapter))
}
