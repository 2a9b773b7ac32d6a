import t from 'tap'
import { positionToString } from '../../src/eventlog/port.js'
import { runCli } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { moment } from '../audit/support/live.js'
import { dataDir, ingest } from './support/migration.js'

t.test('export --since and --until keep only the log records between them, by position or by time', async (t) => {
  const dir = tempDir(t)
  const { log, installation } = await dataDir(dir)
  await ingest(log, installation, 0, 100, false)
  const first = positionToString((await log.headPosition())!)
  const betweenFirstAndSecond = await moment()
  await ingest(log, installation, 100, 200, false)
  const second = positionToString((await log.headPosition())!)
  await ingest(log, installation, 200, 300, true)
  await log.close()

  const exported = async (...range: string[]): Promise<number[]> => {
    const run = await runCli(['export', '--environment', String(installation.environment_id), ...range], { HEDGELOG_DATA_DIR: dir })
    t.equal(run.code, 0, run.stderr)
    return run.stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line).properties.seq as number)
  }
  const seqs = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i)

  t.same(await exported(), seqs(0, 300), 'everything without a range')
  t.same(await exported('--since', first), seqs(100, 300), '--since a position leaves out the record at it')
  t.same(await exported('--until', second), seqs(0, 200), '--until a position keeps the record at it')
  t.same(await exported('--since', first, '--until', second), seqs(100, 200), 'both: the records between')
  t.same(await exported('--since', first.split('/')[0]!, '--until', second.split('/')[0]!), seqs(100, 200), 'bare commit positions')
  t.same(await exported('--since', betweenFirstAndSecond), seqs(100, 300), '--since a time')
  t.same(await exported('--until', betweenFirstAndSecond), seqs(0, 100), '--until a time')
  t.same(await exported('--until', '2001-01-01T00:00:00Z'), [], 'nothing before the log began')
})
