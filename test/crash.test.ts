import t from 'tap'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SqliteEventLog } from '../src/eventlog/sqlite.js'
import { SqliteReadStore } from '../src/readstore/sqlite.js'
import { digestProjection } from '../projections/digest.js'
import { allProjectors } from '../src/modules.js'
import { ProjectionSet } from '../projections/projection-set.js'
import { ProjectionRegistry } from '../projections/registry.js'
import { collect } from './support/collect.js'
import { exited, nodeCommand } from './support/cli.js'
import { tempDir } from './support/temp.js'

const WORKER = fileURLToPath(new URL('./fixtures/append-worker.js', import.meta.url))

const digestsAfterCatchUp = async (log: SqliteEventLog, storePath: string) => {
  const store = new SqliteReadStore({ path: storePath })
  const registry = new ProjectionRegistry(store)
  const projections = new ProjectionSet({ log, store, registry, projectors: allProjectors })
  await projections.start()
  const head = (await log.headPosition())!
  for (const projector of allProjectors) {
    await projections.activeRunner(projector.name)!.waitFor(head, 20_000)
  }
  const digests: Record<string, string> = {}
  for (const projector of allProjectors) {
    digests[projector.name] = (await digestProjection(store, projector, (await registry.read(projector.name))!.active)).sha256
  }
  const keys = await store.count('personal_api_keys_v2_b1')
  await projections.stop()
  await store.close()
  return { digests, keys }
}

t.test('after kill -9 every acknowledged append is readable and projections resume to the rebuild digest', async (t) => {
  const dir = tempDir(t)
  const worker = spawn(...nodeCommand([WORKER]), { env: { ...process.env, HEDGELOG_DATA_DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'] })
  const acknowledged: string[] = []
  let buffered = ''
  await new Promise<void>((resolve) => {
    worker.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) if (line.startsWith('{')) acknowledged.push((JSON.parse(line) as { id: string }).id)
      if (acknowledged.length >= 1500) resolve()
    })
  })
  worker.kill('SIGKILL')
  await exited(worker)
  t.ok(acknowledged.length >= 1500, `${acknowledged.length} appends were acknowledged before the kill`)

  const log = new SqliteEventLog({ path: join(dir, 'events.sqlite') })
  t.teardown(() => log.close())
  const created = new Set((await collect(log.readAll())).filter((e) => e.type === 'PersonalApiKeyCreated').map((e) => e.data['keyId'] as string))
  const lost = acknowledged.filter((id) => !created.has(id))
  t.same(lost, [], 'no acknowledged append was lost')

  const resumed = await digestsAfterCatchUp(log, join(dir, 'readmodels.sqlite'))
  const rebuilt = await digestsAfterCatchUp(log, join(dir, 'rebuilt.sqlite'))
  t.same(resumed.digests, rebuilt.digests, 'the resumed projections equal a full rebuild')
  t.equal(resumed.keys, created.size, 'every stored key is projected exactly once')
})
