import t from 'tap'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { runCli } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { dataDir, importedSeqs, sampleEvent } from './support/migration.js'

t.test('import - reads standard input and, given the same input again, stores nothing twice', async (t) => {
  const dir = tempDir(t)
  const { log, installation } = await dataDir(dir)
  await log.close()
  const input = Array.from({ length: 250 }, (_, n) => JSON.stringify(sampleEvent(n))).join('\n') + '\n'
  const args = ['import', '--environment', String(installation.environment_id), '--chunk-lines', '100', '-']
  const env = { HEDGELOG_DATA_DIR: dir }

  const first = await runCli(args, env, input)
  t.equal(first.code, 0, first.stderr)
  t.match(first.stderr, 'imported 250 events: 3 chunks written, 0 already imported')
  const again = await runCli(args, env, input)
  t.equal(again.code, 0, again.stderr)
  t.match(again.stderr, 'imported 250 events: 0 chunks written, 3 already imported')

  const reopened = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  t.teardown(() => reopened.close())
  t.same(await importedSeqs(reopened), Array.from({ length: 250 }, (_, n) => n), 'every line once, in order')
})
