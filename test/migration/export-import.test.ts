import t from 'tap'
import { spawn } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { cliCommand, runCli } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { capturedDigests, dataDir, ingest } from './support/migration.js'

const TOTAL = 200_000

/** Runs the CLI with its standard output going to a file. */
const runCliTo = (args: string[], env: Record<string, string>, file: string): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve, reject) => {
    const fd = openSync(file, 'w')
    const child = spawn(...cliCommand(args, true), { env: { ...process.env, ...env }, stdio: ['ignore', fd, 'pipe'] })
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code) => { closeSync(fd); resolve({ code, stderr }) })
  })

t.test('200,000 events exported from one data directory and imported into a fresh one give identical read models', async (t) => {
  const started = Date.now()
  const source = tempDir(t)
  const target = tempDir(t)
  const work = tempDir(t)
  const from = await dataDir(source)
  // Half arrived in realtime requests, half through an earlier historical migration.
  await ingest(from.log, from.installation, 0, TOTAL / 2, false)
  await ingest(from.log, from.installation, TOTAL / 2, TOTAL, true)
  await from.log.close()
  const to = await dataDir(target)
  await to.log.close()
  t.comment(`source written in ${Date.now() - started} ms`)

  const file = join(work, 'events.ndjson')
  const exported = await runCliTo(['export', '--environment', String(from.installation.environment_id)], { HEDGELOG_DATA_DIR: source }, file)
  t.equal(exported.code, 0, exported.stderr)
  t.match(exported.stderr, `exported ${TOTAL} events`)
  const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line !== '')
  t.equal(lines.length, TOTAL, 'one line per event')
  t.same(JSON.parse(lines[0]!).properties.seq, 0, 'in log order')
  t.same(JSON.parse(lines.at(-1)!).properties.seq, TOTAL - 1)
  t.comment(`exported after ${Date.now() - started} ms`)

  const imported = await runCli(['import', '--environment', String(to.installation.environment_id), file], { HEDGELOG_DATA_DIR: target })
  t.equal(imported.code, 0, imported.stderr)
  t.match(imported.stderr, `imported ${TOTAL} events`)
  t.comment(`imported after ${Date.now() - started} ms`)

  const sourceLog = new SqliteEventLog({ path: join(source, 'events.sqlite') })
  const targetLog = new SqliteEventLog({ path: join(target, 'events.sqlite') })
  t.teardown(async () => { await sourceLog.close(); await targetLog.close() })
  const before = await capturedDigests(sourceLog)
  const after = await capturedDigests(targetLog)
  t.comment(`digested after ${Date.now() - started} ms`)
  t.equal(before.find((d) => d.projection === 'events')?.collections['events']?.count, TOTAL, 'every event is in the source read model')
  t.ok((before.find((d) => d.projection === 'persons')?.collections['persons']?.count ?? 0) > 1000, 'thousands of persons')
  t.ok((before.find((d) => d.projection === 'groups')?.collections['groups']?.count ?? 0) > 10, 'groups')
  t.ok((before.find((d) => d.projection === 'sessions')?.collections['sessions']?.count ?? 0) > 1000, 'sessions')
  t.same(after, before, 'persons, groups, sessions and events digests are identical')
})
