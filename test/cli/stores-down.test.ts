import t from 'tap'
import { closedPort } from '../support/closed-port.js'
import { runCli } from '../support/cli.js'
import { tempDir } from '../support/temp.js'

t.test('given EventStoreDB does not answer, init gives up after HEDGELOG_STORE_WAIT_MS with one line and exit 1', async (t) => {
  const started = performance.now()
  const run = await runCli(['init'], { HEDGELOG_DATA_DIR: tempDir(t), HEDGELOG_EVENTSTORE_URL: `esdb://127.0.0.1:${await closedPort()}?tls=false`, HEDGELOG_STORE_WAIT_MS: '1000' })
  t.equal(run.code, 1)
  t.match(run.stderr, /^hedgelog: the event log \(EventStoreDB at esdb:\/\/127\.0\.0\.1:\d+\?tls=false\) did not answer within 1 s: [^\n]+\n$/)
  t.ok(performance.now() - started < 10_000, `gave up after ${Math.round(performance.now() - started)} ms`)
})

t.test('given MongoDB does not answer, quarantine list gives up after HEDGELOG_STORE_WAIT_MS with one line and exit 1', async (t) => {
  const started = performance.now()
  const run = await runCli(['quarantine', 'list'], {
    HEDGELOG_DATA_DIR: tempDir(t), HEDGELOG_MONGO_URL: `mongodb://user:secret@127.0.0.1:${await closedPort()}/?directConnection=true`, HEDGELOG_STORE_WAIT_MS: '1000',
  })
  t.equal(run.code, 1)
  t.match(run.stderr, /^hedgelog: the read store \(MongoDB at mongodb:\/\/user:\*\*\*@127\.0\.0\.1:\d+\/\?directConnection=true\) did not answer within 1 s: [^\n]+\n$/)
  t.notMatch(run.stderr, /secret/, 'the password is not printed')
  t.ok(performance.now() - started < 10_000, `gave up after ${Math.round(performance.now() - started)} ms`)
})
