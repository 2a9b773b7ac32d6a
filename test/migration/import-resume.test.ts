import t from 'tap'
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { IMPORT_COMMITTED } from '../../src/ingestion/import-events.js'
import { cliCommand, exited, runCli } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { dataDir, importedSeqs, sampleEvent } from './support/migration.js'

const committedImports = async (path: string): Promise<number> => {
  const log = new SqliteEventLog({ path })
  try {
    let count = 0
    for await (const record of log.readAll()) if (record.type === IMPORT_COMMITTED) count++
    return count
  } finally {
    await log.close()
  }
}

t.test('an import killed with kill -9 half-way and started again ends with every event exactly once', async (t) => {
  const dir = tempDir(t)
  const { log, installation } = await dataDir(dir)
  await log.close()
  const total = 40_000
  const file = join(tempDir(t), 'events.ndjson')
  writeFileSync(file, Array.from({ length: total }, (_, n) => JSON.stringify(sampleEvent(n))).join('\n') + '\n')
  const env = { HEDGELOG_DATA_DIR: dir }
  const args = ['import', '--environment', String(installation.environment_id), '--chunk-lines', '500', file]

  const child = spawn(...cliCommand(args, true), { env: { ...process.env, ...env }, stdio: 'ignore' })
  t.teardown(() => { child.kill('SIGKILL') })
  let committed = 0
  while (committed < 20 && child.exitCode === null) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    committed = await committedImports(join(dir, 'events.sqlite'))
  }
  child.kill('SIGKILL')
  await exited(child)
  committed = await committedImports(join(dir, 'events.sqlite'))
  t.ok(committed >= 20 && committed < total / 500, `killed after ${committed} of ${total / 500} chunks`)

  const again = await runCli(args, env)
  t.equal(again.code, 0, again.stderr)
  t.match(again.stderr, new RegExp(`imported ${total} events: ${total / 500 - committed} chunks written, ${committed} already imported`))

  const reopened = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  t.teardown(() => reopened.close())
  const seqs = await importedSeqs(reopened)
  t.equal(seqs.length, total, 'as many events as lines')
  t.equal(new Set(seqs).size, total, 'none twice')
  t.same(seqs, [...seqs].sort((a, b) => a - b), 'in file order')
})

t.test('a malformed line is refused with its line number and nothing of its chunk is written', async (t) => {
  const dir = tempDir(t)
  const { log, installation } = await dataDir(dir)
  await log.close()
  const file = join(tempDir(t), 'events.ndjson')
  const lines = Array.from({ length: 6 }, (_, n) => JSON.stringify(sampleEvent(n)))
  const env = { HEDGELOG_DATA_DIR: dir }
  const args = ['import', '--environment', String(installation.environment_id), '--chunk-lines', '2', file]

  writeFileSync(file, [...lines.slice(0, 3), '{"event": "broken",', ...lines.slice(4)].join('\n'))
  const broken = await runCli(args, env)
  t.equal(broken.code, 1)
  t.match(broken.stderr, /^hedgelog: line 4: not valid JSON/m)
  t.equal(await committedImports(join(dir, 'events.sqlite')), 1, 'only the chunk before it')

  writeFileSync(file, [...lines.slice(0, 3), '[1, 2]', ...lines.slice(4)].join('\n'))
  t.match((await runCli(args, env)).stderr, /^hedgelog: line 4: not a JSON object/m)
  writeFileSync(file, [...lines.slice(0, 3), '{"event": "no one"}', ...lines.slice(4)].join('\n'))
  t.match((await runCli(args, env)).stderr, /^hedgelog: line 4: the event would be dropped/m)

  writeFileSync(file, lines.join('\n'))
  const fixed = await runCli(args, env)
  t.equal(fixed.code, 0, fixed.stderr)
  t.match(fixed.stderr, /imported 6 events: 2 chunks written, 1 already imported/)
  const reopened = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  t.teardown(() => reopened.close())
  t.same(await importedSeqs(reopened), [0, 1, 2, 3, 4, 5])
})

t.test('import and export refuse what they cannot use, naming it', async (t) => {
  const dir = tempDir(t)
  const { log } = await dataDir(dir)
  await log.close()
  const env = { HEDGELOG_DATA_DIR: dir }
  t.match((await runCli(['import', '--environment', '1', join(dir, 'missing.ndjson')], env)).stderr, /no such file/)
  t.match((await runCli(['import', 'file.ndjson'], env)).stderr, /--environment takes the id/)
  t.match((await runCli(['import', '--environment', '999', '-'], env)).stderr, /no environment 999/)
  t.match((await runCli(['export', '--environment', '1', '--since', 'yesterday'], env)).stderr, /--since takes a log position/)
})
