import t from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { STALE_MS, isLeftover, removeScratchLeftovers, scratchRoot } from '../../src/cli/scratch-dirs.js'
import { cliCommand, exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { dataDir, ingest } from '../migration/support/migration.js'

const NOW = Date.parse('2024-06-01T12:00:00Z')
const here = { host: 'box', alive: (pid: number) => pid === 100, now: NOW }

/** A pid that no process has any more: a child that already ended. */
const endedPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid!

t.test('a scratch directory is a leftover once its process has ended, or when another host stopped touching it', async (t) => {
  t.notOk(isLeftover('box.100.aB3xYz', NOW - 10 * STALE_MS, here), 'its process on this host is running, however old')
  t.ok(isLeftover('box.101.aB3xYz', NOW, here), 'its process on this host has ended, however fresh')
  t.notOk(isLeftover('other.101.aB3xYz', NOW - STALE_MS + 1000, here), 'another host touched it lately')
  t.ok(isLeftover('other.101.aB3xYz', NOW - STALE_MS - 1000, here), 'another host stopped touching it')
  t.ok(isLeftover('box.example.org.101.aB3xYz', NOW, { ...here, host: 'box.example.org' }), 'a host name with dots')
  t.notOk(isLeftover('notes', NOW - 10 * STALE_MS, here), 'a name this code did not make is left alone')
})

t.test('removing leftovers keeps what running processes use and takes the rest', async (t) => {
  const root = join(tempDir(t), 'rebuild-tmp')
  t.same(removeScratchLeftovers(root), [], 'no scratch root yet: nothing to do')
  const host = hostname().replace(/[^A-Za-z0-9.-]/g, '_')
  const dead = join(root, `${host}.${endedPid()}.dead01`)
  const mine = join(root, `${host}.${process.pid}.mine01`)
  const remoteFresh = join(root, 'elsewhere.7.fresh1')
  const remoteStale = join(root, 'elsewhere.7.stale1')
  for (const dir of [dead, mine, remoteFresh, remoteStale]) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'readmodels.sqlite'), 'x')
  }
  const old = new Date(Date.now() - 2 * STALE_MS)
  utimesSync(remoteStale, old, old)
  t.same(removeScratchLeftovers(root).sort(), [dead, remoteStale].sort())
  t.same(readdirSync(root).sort(), [`${host}.${process.pid}.mine01`, 'elsewhere.7.fresh1'].sort())
})

t.test('a rebuild killed with SIGKILL leaves its scratch space in the data directory, and the next rebuild and serve remove such leftovers', async (t) => {
  const dir = tempDir(t)
  const { log, installation } = await dataDir(dir)
  await ingest(log, installation, 0, 6000, false)
  await log.close()
  const env = { HEDGELOG_DATA_DIR: dir }
  const root = scratchRoot(dir)

  const child = spawn(...cliCommand(['rebuild'], true), { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
  t.teardown(() => { child.kill('SIGKILL') })
  let stderr = ''
  await new Promise<void>((resolve) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      if (stderr.includes('rebuild: ')) resolve()
    })
  })
  child.kill('SIGKILL')
  await exited(child)
  const left = readdirSync(root)
  t.equal(left.length, 1, 'the killed rebuild left its directory')
  t.ok(existsSync(join(root, left[0]!, 'readmodels.sqlite')), 'with its read models in it')
  t.match(left[0], new RegExp(`\\.${child.pid}\\.`), 'named for its process')

  const again = await runCli(['rebuild', '--projection', 'environments'], env)
  t.equal(again.code, 0, again.stderr)
  t.same(readdirSync(root), [], 'the next rebuild removed the leftover, and its own directory when done')

  const leftover = join(root, `${hostname().replace(/[^A-Za-z0-9.-]/g, '_')}.${endedPid()}.left01`)
  mkdirSync(leftover, { recursive: true })
  const server = await startServer(['--roles', 'api'], env)
  t.teardown(async () => {
    server.child.kill('SIGTERM')
    await exited(server.child)
  })
  t.notOk(existsSync(leftover), 'serve removed a leftover at start')
  t.match(server.output(), /removed the scratch space of replays/)
})

t.test('--into keeps its directory as before, outside the scratch root', async (t) => {
  const dir = tempDir(t)
  const { log } = await dataDir(dir)
  await log.close()
  const into = join(tempDir(t), 'kept')
  const run = await runCli(['rebuild', '--projection', 'environments', '--into', into], { HEDGELOG_DATA_DIR: dir })
  t.equal(run.code, 0, run.stderr)
  t.ok(existsSync(join(into, 'readmodels.sqlite')))
  t.same(existsSync(scratchRoot(dir)) ? readdirSync(scratchRoot(dir)) : [], [], 'nothing was made in the scratch root')
})
