import t from 'tap'
import { join } from 'node:path'
import { SqliteEventLog } from '../../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../../src/readstore/sqlite.js'
import { ProjectionSet } from '../../projections/projection-set.js'
import { ReadModels } from '../../src/readstore/read-models.js'
import { ProjectionRegistry } from '../../projections/registry.js'
import { exited, runCli, startServer } from '../support/cli.js'
import { tempDir } from '../support/temp.js'
import { tally, type TallyDocuments } from './support/tally.js'

const PER_BATCH = 5_000

const send = async (address: string, token: string, batch: string): Promise<number> => {
  const response = await fetch(`${address}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      api_key: token, historical_migration: true,
      batch: Array.from({ length: PER_BATCH }, (_, i) => ({ event: 'imported', distinct_id: `u${i % 31}`, properties: { batch, n: i, pad: 'x'.repeat(120) } })),
    }),
  })
  await response.arrayBuffer()
  return response.status
}

t.test('kill -9 during a migration: each batch is visible whole or not at all, and every acknowledged one is whole', async (t) => {
  const dir = tempDir(t)
  const env = { HEDGELOG_DATA_DIR: dir, LOG_LEVEL: 'warn' }
  const { project_api_key: token } = JSON.parse((await runCli(['init', '--json'], env)).stdout) as { project_api_key: string }
  const first = await startServer([], { ...env, LOG_LEVEL: 'info' })
  // Listened for before the kill: a child killed by a signal keeps a null exit code.
  const firstGone = new Promise((resolve) => first.child.once('exit', resolve))

  const sent: string[] = []
  const acknowledged: string[] = []
  let killed = false
  const sender = async (lane: number): Promise<void> => {
    for (let i = 0; !killed; i++) {
      const batch = `lane${lane}-${i}`
      sent.push(batch)
      const status = await send(first.address, token, batch).catch(() => 0)
      if (status === 200 && !killed) acknowledged.push(batch)
      if (acknowledged.length >= 4 && !killed) {
        killed = true
        first.child.kill('SIGKILL')
      }
    }
  }
  await Promise.all([sender(0), sender(1), sender(2)])
  await firstGone
  t.ok(acknowledged.length >= 4, `${acknowledged.length} of ${sent.length} batches were acknowledged before the kill`)

  const second = await startServer([], { ...env, LOG_LEVEL: 'info' })
  t.equal(await send(second.address, token, 'after-restart'), 200, 'the restarted service takes migrations again')
  second.child.kill('SIGTERM')
  await exited(second.child)

  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  const store = new SqliteReadStore({ path: join(dir, 'tally.sqlite') })
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: [tally] })
  await projections.start()
  t.teardown(async () => { await projections.stop(); await log.close(); await store.close() })
  const models = new ReadModels<TallyDocuments>({ store, registry, projectors: [tally], projections })
  t.ok(await models.waitFor((await log.headPosition())!, ['tally_batches'], 30_000))

  const visible = new Map((await models.find('tally_batches')).map((doc) => [doc.id, doc.count]))
  t.same([...visible.values()].filter((count) => count !== PER_BATCH), [], 'no batch is visible in part')
  t.same(acknowledged.filter((batch) => visible.get(batch) !== PER_BATCH), [], 'every acknowledged batch is visible whole')
  t.equal(visible.get('after-restart'), PER_BATCH)
  t.ok([...visible.keys()].every((batch) => batch === 'after-restart' || sent.includes(batch)))
})
