import t from 'tap'
import { MongoReadStore, NotAReplicaSet } from '../../src/readstore/mongo.js'
import { runCli } from '../support/cli.js'
import { fakeMongo } from '../support/fake-mongo.js'
import { tempDir } from '../support/temp.js'

t.test('a standalone MongoDB is refused on connect, with one line saying why', async (t) => {
  const standalone = await fakeMongo({})
  t.teardown(() => standalone.close())
  await t.rejects(MongoReadStore.connect(standalone.url), NotAReplicaSet)
  await t.rejects(MongoReadStore.connect(standalone.url), { message: /is not a replica set member \(hello reports no setName\)/ })

  const started = await runCli(['serve'], { HEDGELOG_DATA_DIR: tempDir(t), PORT: '0', HEDGELOG_MONGO_URL: standalone.url })
  t.equal(started.code, 1, 'start-up stops')
  t.match(started.stderr, /^hedgelog: MongoDB at mongodb:\/\/127\.0\.0\.1:\d+\/.* is not a replica set member .*\n$/, 'in one line')
})

t.test('a replica set member is accepted', async (t) => {
  const member = await fakeMongo({ setName: 'rs0' })
  t.teardown(() => member.close())
  const store = await MongoReadStore.connect(member.url)
  await store.close()
  t.pass('connected')
})
