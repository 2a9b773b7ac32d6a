import t from 'tap'
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { positionToString } from '../../src/eventlog/port.js'
import { cliCommand, exited, type Run } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { dataDir, ingest } from '../migration/support/migration.js'

/**
 * Runs a long command, sends it one Ctrl-C as soon as its first progress line shows it at work,
 * and waits for it to end.
 */
const interrupted = (args: string[], env: Record<string, string>, label: string): Promise<Run> => new Promise((resolve, reject) => {
  const child = spawn(...cliCommand(args, true), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  let signalled = false
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
    if (!signalled && stderr.includes(`${label}: 0 `)) {
      signalled = true
      child.kill('SIGINT')
    }
  })
  child.on('error', reject)
  exited(child).then((code) => resolve({ code, stdout, stderr }), reject)
})

t.test('Ctrl-C stops verify --seals, seal and rebuild at a safe point with exit 130, leaving nothing half-written', async (t) => {
  const dir = tempDir(t)
  const { log, installation } = await dataDir(dir)
  await ingest(log, installation, 0, 20_000, false)
  for (let start = 0; start < 150_000; start += 5000) {
    await log.append(`note-${start}`, Array.from({ length: 5000 }, (_, i) => ({ id: crypto.randomUUID(), type: 'Noted', data: { n: start + i }, metadata: {} })))
  }
  const head = positionToString((await log.headPosition())!)
  await log.close()
  const env = { HEDGELOG_DATA_DIR: dir }
  const headNow = async () => {
    const reopened = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
    try {
      return positionToString((await reopened.headPosition())!)
    } finally {
      await reopened.close()
    }
  }

  const verified = await interrupted(['verify', '--seals'], env, 'verify --seals')
  t.equal(verified.code, 130, verified.stderr)
  t.match(verified.stderr, 'stopping at the next safe point')
  t.match(verified.stderr, 'hedgelog: verify --seals stopped before it finished')
  t.equal(verified.stdout, '', 'no verdict on a walk that did not reach the end')

  const sealed = await interrupted(['seal'], env, 'seal')
  t.equal(sealed.code, 130, sealed.stderr)
  t.match(sealed.stderr, 'hedgelog: seal stopped before it finished')
  t.equal(await headNow(), head, 'no seal appended')

  const into = join(tempDir(t), 'then')
  const rebuilt = await interrupted(['rebuild', '--into', into], env, 'rebuild')
  t.equal(rebuilt.code, 130, rebuilt.stderr)
  t.match(rebuilt.stderr, 'hedgelog: rebuild stopped before it finished')
  t.same(existsSync(into) ? readdirSync(into) : [], [], 'no read models left in --into')
  t.equal(await headNow(), head, 'the log is as it was')
})
